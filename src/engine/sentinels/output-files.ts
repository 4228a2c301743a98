import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { writeAtomically } from '../../platform/files/atomic-write.ts';

/**
 * A sentinel's output files, relative to the execution's `.ribosome/sentinels/`:
 * - `log`: one JSON line per output, `{"time","triggerNumber","content"}`, appended.
 * - `last`: the latest output only, replaced atomically (written to a temporary file beside it, then
 *   renamed over it), so a reader never sees half a file. Text output is written as is, structured
 *   output as indented JSON.
 * Writes of one sentinel happen one at a time (its worker is serial), so lines never interleave.
 */
export type OutputFiles = { log?: string | undefined; last?: string | undefined };
export type OutputRecord = { time: string; triggerNumber: number; content: string | Record<string, unknown> };

/** Absolute paths, refusing any that leave the directory (the plan schema refuses them too). */
export function resolveOutputFiles(
  outputDir: string,
  files: OutputFiles | undefined,
): { ok: true; log?: string; last?: string } | { ok: false; message: string } {
  const out: { log?: string; last?: string } = {};
  for (const key of ['log', 'last'] as const) {
    const file = files?.[key];
    if (file === undefined) continue;
    const path = resolve(outputDir, file);
    const rel = relative(outputDir, path);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      return { ok: false, message: `outputFiles.${key} "${file}" must stay inside ${outputDir}` };
    }
    out[key] = path;
  }
  return { ok: true, ...out };
}

/** Writes one output to the files given; returns the problems (empty when all went well). */
export async function writeOutput(
  paths: { log?: string; last?: string },
  record: OutputRecord,
): Promise<string[]> {
  const problems: string[] = [];
  if (paths.log !== undefined) {
    const log = paths.log;
    await attempt(problems, log, async () => {
      await mkdir(dirname(log), { recursive: true });
      await appendFile(log, `${JSON.stringify(record)}\n`);
    });
  }
  if (paths.last !== undefined) {
    const last = paths.last;
    const text =
      typeof record.content === 'string' ? record.content : `${JSON.stringify(record.content, null, 2)}\n`;
    await attempt(problems, last, () => writeAtomically(last, text));
  }
  return problems;
}

async function attempt(problems: string[], path: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    problems.push(`cannot write ${path}: ${(error as Error).message}`);
  }
}
