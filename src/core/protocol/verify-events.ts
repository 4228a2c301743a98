import { z } from 'zod';
import { ours } from './extension.ts';

/**
 * Ours: verification gates (docs/unattended.md#verification-gates). `gate` is the gate's 0-based index in the
 * codon's `verify` list; `round` counts the runs of the gates within one codon.started ..
 * codon.completed span (0 after the agent's first run, then one more per feedback round).
 */
export const verifyEvents = {
  'verify.started': ours(
    z.object({
      codonId: z.string(),
      gate: z.number().int().min(0),
      /** How many gates the codon has. */
      gates: z.number().int().min(1),
      command: z.string(),
      /** Where it runs, relative to the agent root ("." for the root itself). */
      cwd: z.string(),
      round: z.number().int().min(0),
    }),
  ),
  /** A chunk of a running gate's output; a gate streams at most 64 KiB (its tail is in verify.completed). */
  'verify.output': ours(
    z.object({
      codonId: z.string(),
      gate: z.number().int().min(0),
      stream: z.enum(['stdout', 'stderr']),
      text: z.string(),
    }),
  ),
  'verify.completed': ours(
    z.object({
      codonId: z.string(),
      gate: z.number().int().min(0),
      command: z.string(),
      round: z.number().int().min(0),
      passed: z.boolean(),
      /** Null when the command was killed (timeout, stop) or could not be started. */
      exitCode: z.number().int().nullable(),
      timedOut: z.boolean(),
      /** Ended by a stop of the codon (forceStop, skip, a budget, the server's shutdown). */
      stopped: z.boolean().optional(),
      durationMs: z.number(),
      /** The output's last 4 000 characters, stdout and stderr as they came. */
      outputTail: z.string(),
    }),
  ),
};
