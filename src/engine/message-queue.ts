import type { MessageBacklog } from '../agents/agent-adapter.ts';

/**
 * How much may wait for the running codon's agent, sent (codon.message, a sentinel's message) and not
 * yet taken up: messages, and their UTF-8 bytes (config file `limits.messageQueueMessages`,
 * `limits.messageQueueBytes`). A flood would otherwise grow the server and the agent's next request
 * without end (past what its provider accepts).
 */
export type MessageQueueLimits = { maxMessages: number; maxBytes: number };

export const DEFAULT_MESSAGE_QUEUE: MessageQueueLimits = { maxMessages: 100, maxBytes: 1024 * 1024 };

/** Why a message of `bytes` may not join the `backlog` of codon `codonId`'s agent, or undefined. Pure. */
export function queueRefusal(
  codonId: string,
  backlog: MessageBacklog,
  bytes: number,
  limits: MessageQueueLimits,
): string | undefined {
  const full =
    backlog.count + 1 > limits.maxMessages
      ? `${backlog.count} messages (at most ${limits.maxMessages}, limits.messageQueueMessages)`
      : backlog.bytes + bytes > limits.maxBytes
        ? `${backlog.count} messages of ${backlog.bytes} bytes; this one of ${bytes} would pass ${limits.maxBytes} (limits.messageQueueBytes)`
        : undefined;
  return full === undefined
    ? undefined
    : `the message is not sent: the agent of codon ${codonId} has not taken up the ${full} waiting for it; send it once the agent has read them`;
}
