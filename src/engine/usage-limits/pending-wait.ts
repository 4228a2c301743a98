import { USAGE_WAIT_TURNS, usageLimitEvents } from '../../core/protocol/index.ts';
import type { Journal } from '../../execution/journal/journal.ts';

/** A wait a previous server journaled (usageLimit.waiting), read back at startup. */
export type ResumedWait = {
  codonId: string;
  agent: string;
  model?: string;
  resetsAt?: number;
  until: number;
  detail?: string;
};

/**
 * The usage-limit wait a previous server journaled and nothing ended (docs/unattended.md#usage-limits):
 * the newest of those events is a usageLimit.waiting. A server stopped or killed during the wait
 * journals no end, so the next one waits again until the same time. Undefined when there is none,
 * or its row cannot be read (the server then goes on as without it).
 */
export function pendingUsageWait(journal: Pick<Journal, 'lastOf'>): ResumedWait | undefined {
  const row = journal.lastOf(USAGE_WAIT_TURNS);
  if (row?.type !== 'usageLimit.waiting') return undefined;
  const parsed = usageLimitEvents['usageLimit.waiting'].safeParse(
    (JSON.parse(row.json) as { data?: unknown }).data,
  );
  if (!parsed.success) return undefined;
  const d = parsed.data;
  const until = Date.parse(d.until);
  const resetsAt = d.resetsAt === undefined ? Number.NaN : Date.parse(d.resetsAt);
  if (Number.isNaN(until)) return undefined;
  return {
    codonId: d.codonId,
    agent: d.agent,
    ...(d.model === undefined ? {} : { model: d.model }),
    ...(Number.isNaN(resetsAt) ? {} : { resetsAt }),
    until,
    ...(d.detail === undefined ? {} : { detail: d.detail }),
  };
}
