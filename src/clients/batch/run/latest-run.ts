import { existsSync } from 'node:fs';
import { executionLayout } from '../../../execution/layout/layout.ts';
import { type RunRow, readRuns } from '../../runs/index.ts';

/** The latest run of an execution, as `ribosome runs` shows it; undefined when it has none. */
export function latestRun(executionDir: string): RunRow | undefined {
  if (!existsSync(executionLayout(executionDir).database)) return undefined;
  return readRuns(executionDir).at(-1);
}
