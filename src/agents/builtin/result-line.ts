/** Builds the final `result` line, fields in the order Claude Code prints them. */
import { randomUUID } from 'node:crypto';
import type { UsageLimit } from '../../llm/usage-limit/usage-limit.ts';
import type { ResultLine } from './stream-json.ts';
import { createUsageTally, type UsageTotals } from './usage-tally.ts';

export type ResultFields = {
  subtype: ResultLine['subtype'];
  isError: boolean;
  /** HTTP status of the API failure that ended the run, if one did. */
  apiErrorStatus?: number | null;
  /** The provider's retry-after of that failure, in milliseconds. */
  retryAfterMs?: number | null;
  /** That failure was a usage limit (docs/unattended.md#usage-limits): when it resets, if said. */
  usageLimit?: UsageLimit | null;
  result?: string;
  stopReason: string | null;
  terminalReason?: string;
  errors?: string[];
  sessionId: string;
  durationMs: number;
  durationApiMs?: number;
  numTurns?: number;
  /** Omitted for runs that never called the model. */
  totals?: UsageTotals;
};

export function resultLine(fields: ResultFields): ResultLine {
  const totals = fields.totals ?? createUsageTally().totals();
  return {
    type: 'result',
    subtype: fields.subtype,
    is_error: fields.isError,
    api_error_status: fields.apiErrorStatus ?? null,
    ...(fields.retryAfterMs == null ? {} : { retry_after_ms: fields.retryAfterMs }),
    ...(fields.usageLimit ? { usage_limit: { resets_at_ms: fields.usageLimit.resetsAtMs } } : {}),
    duration_ms: fields.durationMs,
    duration_api_ms: fields.durationApiMs ?? 0,
    num_turns: fields.numTurns ?? 0,
    ...(fields.result === undefined ? {} : { result: fields.result }),
    stop_reason: fields.stopReason,
    session_id: fields.sessionId,
    total_cost_usd: totals.totalCostUsd,
    usage: totals.usage,
    modelUsage: totals.modelUsage,
    permission_denials: [],
    ...(fields.terminalReason === undefined ? {} : { terminal_reason: fields.terminalReason }),
    ...(fields.errors === undefined ? {} : { errors: fields.errors }),
    uuid: randomUUID(),
  };
}
