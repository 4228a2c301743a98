import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * The plan an execution last started with, as far as "codons done of total" needs it:
 * `<execution>/.ribosome/plan.json`, written at each server start. The database has the runs but not
 * the plan; `ribosome runs` and the exit summary read this to count codons the way the server does.
 */
export const PlanRecord = z.object({
  name: z.string(),
  codons: z.array(
    z.object({
      id: z.string().describe('Runtime id: the codon id, or <codonId>#<iteration> inside a loop.'),
      name: z.string(),
      // biome-ignore lint/suspicious/noThenProperty: the plan field is named `then` (a string, never awaited).
      onFailure: z.object({ then: z.enum(['idle', 'continue', 'abort']) }).optional(),
      loop: z
        .object({
          id: z.string(),
          iteration: z.number().int(),
          iterations: z.number().int(),
          lastInIteration: z.boolean(),
          until: z.enum(['verify']).optional(),
        })
        .optional(),
    }),
  ),
  recordedAt: z.string(),
});
export type PlanRecord = z.infer<typeof PlanRecord>;

export const planRecordPath = (executionDir: string) => join(executionDir, '.ribosome', 'plan.json');

type PlanLike = {
  name: string;
  codons: ReadonlyArray<{
    id: string;
    name: string;
    onFailure?: { then: 'idle' | 'continue' | 'abort' };
    loop?: PlanRecord['codons'][number]['loop'];
  }>;
};

/** The record of a loaded plan: only what counting codons needs. */
export function planRecordOf(plan: PlanLike, now = new Date()): PlanRecord {
  return {
    name: plan.name,
    codons: plan.codons.map((c) => ({
      id: c.id,
      name: c.name,
      // biome-ignore lint/suspicious/noThenProperty: the plan field is named `then`.
      ...(c.onFailure ? { onFailure: { then: c.onFailure.then } } : {}),
      ...(c.loop
        ? {
            loop: {
              id: c.loop.id,
              iteration: c.loop.iteration,
              iterations: c.loop.iterations,
              lastInIteration: c.loop.lastInIteration,
              ...(c.loop.until ? { until: c.loop.until } : {}),
            },
          }
        : {}),
    })),
    recordedAt: now.toISOString(),
  };
}

/** Writes the record whole (temp file, then rename): a reader never sees half of one. */
export function writePlanRecord(executionDir: string, record: PlanRecord): void {
  const file = planRecordPath(executionDir);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

/** The recorded plan, or undefined (an execution of an older version, or an unreadable file). */
export function readPlanRecord(executionDir: string): PlanRecord | undefined {
  try {
    const parsed = PlanRecord.safeParse(JSON.parse(readFileSync(planRecordPath(executionDir), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
