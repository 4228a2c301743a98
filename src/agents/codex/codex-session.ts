import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Usage } from '../../llm/schemas.ts';
import type { ModelSpend } from '../agent-adapter.ts';
import { parseJsonLine } from '../json-line.ts';
import { CodexUsage } from './codex-events.ts';

/** What Codex writes once a response's tool calls are done. */
const TokenCount = z.looseObject({
  type: z.literal('event_msg'),
  payload: z.looseObject({
    type: z.literal('token_count'),
    info: z.looseObject({ total_token_usage: CodexUsage }).nullish(),
  }),
});

/**
 * What Codex writes as each model response ends, before the tools it asks for run: the only record of
 * a response whose run was stopped (or died) in its tool call.
 */
const UsageRecord = z.looseObject({
  type: z.literal('token_usage_record'),
  payload: z.looseObject({ thread_token_usage: CodexUsage }),
});

const Totals = z.union([
  TokenCount.transform((line) => line.payload.info?.total_token_usage),
  UsageRecord.transform((line) => line.payload.thread_token_usage),
]);

/**
 * The session's token totals so far, from its rollout file (`<home>/sessions/YYYY/MM/DD/rollout-...-<id>.jsonl`,
 * its last `token_count` event or `token_usage_record`); undefined when there is no such file or it
 * counted nothing yet. A resumed or forked run reports the session's totals, the earlier runs'
 * included: this is what to subtract.
 */
export function sessionTotals(home: string, sessionId: string): CodexUsage | undefined {
  const text = rollout(home, sessionId);
  return text === undefined ? undefined : lastTotals(text);
}

/**
 * What session `sessionId` under `home` spent, its earlier runs' and its fork parent's included, at
 * the model its last turn ran (AgentAdapter.spentIn); undefined when it has no rollout or counted nothing.
 */
export function sessionSpend(home: string, sessionId: string): ModelSpend[] | undefined {
  const text = rollout(home, sessionId);
  const totals = text === undefined ? undefined : lastTotals(text);
  if (text === undefined || !totals) return undefined;
  return [{ model: lastModel(text) ?? 'unknown', usage: usageBetween(totals, undefined) }];
}

const TurnContext = z.looseObject({
  type: z.literal('turn_context'),
  payload: z.looseObject({ model: z.string() }),
});

/** The model of a rollout's last turn. Pure. */
export function lastModel(rollout: string): string | undefined {
  const lines = rollout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (!line?.includes('"turn_context"')) continue;
    const parsed = parseJsonLine(line, TurnContext);
    if (parsed.ok) return parsed.value.payload.model;
  }
  return undefined;
}

type CountKey = 'input_tokens' | 'cached_input_tokens' | 'cache_write_input_tokens' | 'output_tokens';

/**
 * The tokens spent between two session totals, in the engine's (Anthropic's) terms: cached and
 * cache-written input apart from the rest (OpenAI's input_tokens include them; Anthropic's do not). Pure.
 */
export function usageBetween(total: CodexUsage, before: CodexUsage | undefined): Usage {
  const minus = (key: CountKey) => Math.max(0, total[key] - (before?.[key] ?? 0));
  const cached = minus('cached_input_tokens');
  const written = minus('cache_write_input_tokens');
  return {
    input_tokens: Math.max(0, minus('input_tokens') - cached - written),
    output_tokens: minus('output_tokens'),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: written,
  };
}

function rollout(home: string, sessionId: string): string | undefined {
  const file = rolloutFile(home, sessionId);
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The totals of the last token_count event or token_usage_record of a rollout's text. Pure. */
export function lastTotals(rollout: string): CodexUsage | undefined {
  const lines = rollout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (!line?.includes('"token_count"') && !line?.includes('"token_usage_record"')) continue;
    const parsed = parseJsonLine(line, Totals);
    const totals = parsed.ok ? parsed.value : undefined;
    if (totals) return totals;
  }
  return undefined;
}

/** The rollout file of session `sessionId` under Codex home `home`, if Codex wrote one. */
export function rolloutFile(home: string, sessionId: string): string | undefined {
  const dir = join(home, 'sessions');
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return undefined;
  }
  const name = names.find((n) => n.endsWith(`-${sessionId}.jsonl`));
  return name ? join(dir, name) : undefined;
}
