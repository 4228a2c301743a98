import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
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
  const file = rolloutFile(home, sessionId);
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return lastTotals(text);
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

function rolloutFile(home: string, sessionId: string): string | undefined {
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
