import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { executionLayout } from './layout.ts';

/**
 * The directories right under `parent` that are executions (they hold an execution's database,
 * `.ribosome/ribosome.db`), sorted by name; none when `parent` cannot be read.
 */
export function executionsIn(parent: string): string[] {
  try {
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name))
      .filter((dir) => existsSync(executionLayout(dir).database))
      .sort();
  } catch {
    return [];
  }
}
