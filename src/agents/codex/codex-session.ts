import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseJsonLine } from '../json-line.ts';
import { CodexUsage } from './codex-events.ts';

const TokenCount = z.looseObject({
  type: z.literal('event_msg'),
  payload: z.looseObject({
    type: z.literal('token_count'),
    info: z.looseObject({ total_token_usage: CodexUsage }).nullish(),
  }),
});

/**
 * The session's token totals so far, from its rollout file (`<home>/sessions/YYYY/MM/DD/rollout-...-<id>.jsonl`,
 * its last `token_count` event); undefined when there is no such file or it counted nothing yet. A
 * resumed or forked run reports the session's totals, the earlier runs' included: this is what to
 * subtract.
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

/** The totals of the last token_count event of a rollout's text. Pure. */
export function lastTotals(rollout: string): CodexUsage | undefined {
  const lines = rollout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (!line?.includes('"token_count"')) continue;
    const parsed = parseJsonLine(line, TokenCount);
    const totals = parsed.ok ? parsed.value.payload.info?.total_token_usage : undefined;
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
