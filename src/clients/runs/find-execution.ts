import { basename, join, relative, resolve } from 'node:path';
import { executionsIn } from '../../execution/layout/executions-in.ts';

export type Found = { ok: true; dir: string } | { ok: false; message: string };

/**
 * The execution a reading command (runs, journal export, log) works on: `--execution`, else the only
 * execution under ./ribosome-runs (the default of `ribosome run`, which takes the plan's name).
 * With none or several there, the message says which to name.
 */
export function findExecution(option: string | undefined, cwd: string): Found {
  if (option !== undefined) return { ok: true, dir: resolve(cwd, option) };
  const root = join(cwd, 'ribosome-runs');
  const names = executionsIn(root).map((dir) => basename(dir));
  const [only] = names;
  if (only !== undefined && names.length === 1) return { ok: true, dir: join(root, only) };
  const where = relative(process.cwd(), root) || '.';
  if (names.length === 0) {
    return { ok: false, message: `no execution under ${where}; name one with --execution DIR` };
  }
  return {
    ok: false,
    message: `${names.length} executions under ${where}; name one with --execution DIR: ${names.map((n) => join(where, n)).join(', ')}`,
  };
}
