import { z } from 'zod';
import { ours } from './extension.ts';

/**
 * Ours: a run waiting for an agent's usage limit to reset (docs/unattended.md#usage-limits). A codon
 * that failed with failureReason type `usage-limit` (or one about to start with an agent known to be
 * limited) is started again at `until`; any command that starts a codon, or ends the run, ends the
 * wait first. A server restarted during a wait waits again until the same `until`.
 */
export const usageLimitEvents = {
  'usageLimit.waiting': ours(
    z.object({
      /** The codon that starts when the wait ends (from its start checkpoint). */
      codonId: z.string(),
      /** The agent whose usage limit was reached (builtin, claude-code, codex, gemini, opencode). */
      agent: z.string(),
      model: z.string().optional(),
      /** When the agent or its provider said the limit resets (ISO 8601); absent when it said nothing. */
      resetsAt: z.string().optional(),
      /** When the codon starts again: the reset plus the margin, or a probe when no reset was given. */
      until: z.string(),
      /** The wait (until - now) in milliseconds, as decided. */
      waitMs: z.number().int().nonnegative(),
      /** What the agent said, in its own words. */
      detail: z.string().optional(),
      message: z.string(),
    }),
    'The run waits for a usage limit to reset, then starts the codon again from its start checkpoint.',
  ),
  'usageLimit.ended': ours(
    z.object({
      codonId: z.string(),
      /**
       * `reset`: the time came; `command`: a client's command took over (`command` says which);
       * `budget`: a budget that counts the wait (countWait) ran out meanwhile.
       */
      how: z.enum(['reset', 'command', 'budget']),
      command: z.string().optional(),
      message: z.string(),
    }),
    'A usage-limit wait ended: its time came, a command took over, or a budget counting it ran out.',
  ),
};

/**
 * The events that say whether a usage-limit wait goes on: its start, its end, and any codon's start
 * (a wait ends in one). A wait is in progress while the newest of them is a usageLimit.waiting.
 */
export const USAGE_WAIT_TURNS = ['usageLimit.waiting', 'usageLimit.ended', 'codon.started'] as const;

/** The wait in progress, as state.snapshot carries it. */
export const UsageLimitWait = z.object({
  codonId: z.string(),
  agent: z.string(),
  resetsAt: z.string().optional(),
  until: z.string(),
});
export type UsageLimitWait = z.infer<typeof UsageLimitWait>;
