import { z } from 'zod';

/** ok and warn pass; any fail makes `ribosome doctor` exit 1. */
export const CheckStatus = z.enum(['ok', 'warn', 'fail']);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const CheckResult = z.object({
  /** Short name of what was checked, e.g. `git`. */
  check: z.string(),
  status: CheckStatus,
  /** What was found (a version, a path, an error); never a secret's value. */
  detail: z.string(),
  /** What to do about a warn or fail; absent when ok. */
  fix: z.string().optional(),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const DoctorReport = z.object({ ok: z.boolean(), checks: z.array(CheckResult) });
export type DoctorReport = z.infer<typeof DoctorReport>;

export function report(checks: CheckResult[]): DoctorReport {
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}
