import { createMessagesClient } from '../../llm/messages-client.ts';
import { costOf } from '../../llm/pricing.ts';
import type { MessageParam } from '../../llm/schemas.ts';
import { admit, type SpendGate } from '../../llm/spend/spend-gate.ts';
import { callOf } from '../../llm/spend/worst-case.ts';

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
  /**
   * The run's budgets when this call does not cross the proxy (which checks it then): checked before
   * the call as the proxy checks an agent's (docs/unattended.md#budgets), for `codonId`.
   */
  spendGate?: SpendGate | undefined;
  codonId?: string;
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
  const request = {
    model: call.model,
    max_tokens: call.maxTokens,
    ...(call.system ? { system: call.system } : {}),
    messages: call.messages,
  };
  const priced = call.spendGate && callOf('POST', '/v1/messages', Buffer.from(JSON.stringify(request)));
  const admission = call.spendGate && priced ? admit(call.spendGate, priced, call.codonId) : undefined;
  if (admission?.kind === 'refuse') {
    return { ok: false, message: `not called: ${admission.message}`, retriable: false, aborted: false };
  }
  const hold = admission?.kind === 'forward' ? admission.hold : undefined;
  if (admission?.kind === 'forward' && admission.maxOutput !== undefined)
    request.max_tokens = admission.maxOutput;
  const result = await client.create(request, { signal: call.signal });
  if (!result.ok) {
    // An error answer costs nothing; a call cut short (aborted, timed out, reset) may have: its worst
    // case stays held.
    hold?.settle(result.error.code === 'LLM_HTTP_ERROR' ? 0 : undefined);
    const e = result.error;
    return { ok: false, message: e.message, retriable: e.retryable, aborted: e.code === 'LLM_ABORTED' };
  }
  const { message } = result.value;
  const usage = message.usage;
  hold?.settle(costOf(message.model || call.model, usage).usd);
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
