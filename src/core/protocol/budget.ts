import { z } from 'zod';
import { ours } from './extension.ts';

/** Budgets as clients see them (docs/unattended.md#budgets): optional fields of server.ready and state.snapshot. */

/** A scope's limits; absent limits are not enforced. */
export const BudgetLimits = z.object({
  maxCostUsd: z.number().optional(),
  maxDurationMs: z.number().optional(),
  maxOutputTokens: z.number().optional(),
});
export type BudgetLimits = z.infer<typeof BudgetLimits>;

export const BudgetScopeKind = z.enum(['plan', 'loop', 'codon']);
export type BudgetScopeKind = z.infer<typeof BudgetScopeKind>;

/** One budget scope's spend against its limits, since this server started. */
export const BudgetStatus = z.object({
  scope: BudgetScopeKind,
  /** The plan's name, the loop id or the runtime codon id. */
  id: z.string(),
  limits: BudgetLimits,
  spent: z.object({
    costUsd: z.number(),
    costEstimated: ours(
      z.literal(true).optional(),
      "Present when part of `costUsd` is Ribosome's estimate (an agent that reports no cost).",
    ),
    durationMs: z.number(),
    outputTokens: z.number(),
  }),
  /** ok; warning: a limit reached 80 %; exceeded: a limit was passed (the scope's codons are refused). */
  state: z.enum(['ok', 'warning', 'exceeded']),
  /** Whether the scope's clock runs now (the plan's always; a loop's or codon's while one of its codons is active). */
  ticking: z.boolean(),
});
export type BudgetStatus = z.infer<typeof BudgetStatus>;
