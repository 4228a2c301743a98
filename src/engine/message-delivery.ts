import type { Logger } from 'pino';
import { type MessageDelivery, type MessageSender, MessageText } from '../core/protocol/index.ts';
import type { CodonLifecycle } from './codon-lifecycle.ts';
import type { Recorder } from './recorder.ts';

/**
 * What sending a message did: the agent has the text (and how it reaches it), or why no agent took
 * it. Sentinels see it as ports.ts's MessageOutcome.
 */
export type DeliveryOutcome =
  | { ok: true; codonId: string; delivery: Exclude<MessageDelivery, 'prompt'> }
  | { ok: false; code: 'NO_CODON_RUNNING' | 'INVALID_COMMAND' | 'MESSAGE_QUEUE_FULL'; message: string };

export type DeliveryDeps = {
  lifecycle: Pick<CodonLifecycle, 'sendMessage'>;
  recorder: Recorder;
  logger: Logger;
  /** An automatic retry waits to start (said when no agent takes the text). */
  retryPending: () => boolean;
};

/**
 * Hands `text` to the running codon's agent and journals it (`codon.message`, after the agent has
 * it); NO_CODON_RUNNING, with why, when no agent takes it. Clients (codon.message) and sentinel
 * actions send through here.
 */
export function deliverMessage(d: DeliveryDeps, text: string, from: MessageSender): DeliveryOutcome {
  // Every sender's text, checked here once more: a client's was checked with its command, a
  // sentinel's (a rendered template) was not; this is the one place both pass.
  const checked = MessageText.safeParse(text);
  if (!checked.success) {
    const why = checked.error.issues[0]?.message ?? 'not a message';
    return { ok: false, code: 'INVALID_COMMAND', message: `the message is not sent: ${why}` };
  }
  const sent = d.lifecycle.sendMessage(text);
  if (!sent.ok && sent.code) return { ok: false, code: sent.code, message: sent.message };
  if (!sent.ok) {
    const waiting = d.retryPending() ? '; an automatic retry is waiting to start' : '';
    return { ok: false, code: 'NO_CODON_RUNNING', message: `${sent.message}${waiting}` };
  }
  const { codonId, delivery } = sent;
  d.logger.info({ codonId, from, delivery, chars: text.length }, 'message handed to the agent');
  d.recorder
    .publish('codon.message', { codonId, text, from, delivery })
    .catch((error: unknown) => d.logger.error({ err: error }, 'journaling a codon.message failed'));
  return { ok: true, codonId, delivery };
}
