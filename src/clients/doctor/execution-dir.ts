import { rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CheckResult } from './check-result.ts';

/** The nearest path from `dir` upwards that exists (the run creates the missing rest). */
function nearestExisting(dir: string): string {
  let path = dir;
  for (;;) {
    try {
      statSync(path);
      return path;
    } catch {
      const parent = dirname(path);
      if (parent === path) return path;
      path = parent;
    }
  }
}

/** Writes and removes a probe file in `dir`, or in its nearest existing ancestor when `dir` is not there yet. */
export function checkExecutionDir(dir: string): CheckResult {
  const target = resolve(dir);
  const existing = nearestExisting(target);
  const fail = (detail: string): CheckResult => ({
    check: 'execution dir',
    status: 'fail',
    detail,
    fix: 'pass --execution DIR on a writable disk (run writes its journal, checkpoints and agent root there)',
  });
  if (!statSync(existing).isDirectory())
    return fail(`${existing} is not a directory (on the way to ${target})`);
  const probe = join(existing, `.ribosome-doctor-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
  } catch (error) {
    return fail(
      `${existing}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const detail =
    existing === target
      ? `${target} writable`
      : `${target} not there yet; ${existing} writable (run creates it)`;
  return { check: 'execution dir', status: 'ok', detail };
}
