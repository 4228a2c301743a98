import { createMessagesClient } from '../../llm/messages-client.ts';
import { costOf } from '../../llm/pricing.ts';
import type { MessageParam } from '../../llm/schemas.ts';

/**
 * One sentinel call to the Anthropic Messages API at the configured provider (the proxy when it is
 * on). Not streamed: a sentinel needs the whole answer. No retries here: a failed call is reported
 * and the next trigger makes the next attempt. Failures come back as values.
 */
export type SentinelCall = {
  baseUrl: string;
  apiKey?: string | undefined;
  authToken?: string | undefined;
  /** `anthropic-beta` values (a subscription token needs its oauth beta). */
  betas?: string[] | undefined;
  sentinelId: string;
  model: string;
  maxTokens: number;
  system?: string | undefined;
  messages: MessageParam[];
  timeoutMs: number;
  signal: AbortSignal;
};

export type CallOutcome =
  | { ok: true; text: string; cost: number; tokens: { input: number; output: number } }
  | { ok: false; message: string; retriable: boolean; aborted: boolean };

export async function callSentinelModel(call: SentinelCall): Promise<CallOutcome> {
  const client = createMessagesClient({
    baseUrl: call.baseUrl,
    ...(call.apiKey ? { apiKey: call.apiKey } : {}),
    ...(call.authToken ? { authToken: call.authToken } : {}),
    ...(call.betas?.length ? { betas: call.betas } : {}),
    // Lets a proxy middleware or a scripted provider tell sentinel calls apart.
    headers: { 'x-ribosome-sentinel': call.sentinelId },
    timeoutMs: call.timeoutMs,
  });
  const result = await client.create(
    {
      model: call.model,
      max_tokens: call.maxTokens,
      ...(call.system ? { system: call.system } : {}),
      messages: call.messages,
    },
    { signal: call.signal },
  );
  if (!result.ok) {
    const e = result.error;
    return { ok: false, message: e.message, retriable: e.retryable, aborted: e.code === 'LLM_ABORTED' };
  }
  const { message } = result.value;
  const usage = message.usage;
  const text = message.content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('')
    .trim();
  return {
    ok: true,
    text,
    cost: costOf(message.model || call.model, usage).usd,
    tokens: {
      input:
        usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
      output: usage.output_tokens,
    },
  };
}
