import { describe, it } from 'vitest';
import { commandFound } from '../../src/agents/cli-binary.ts';

/** Whether `binary` can be run: an executable path, or a command found on PATH (as the agent finds it). */
export function installed(binary: string): boolean {
  return commandFound(binary);
}

/**
 * Declares `body` under `title` when every one of `binaries` (agent CLIs: paths or commands on PATH)
 * is installed. One missing: the tests are skipped with a console line naming what is missing, or,
 * with `CI` set (CI installs every agent CLI), a failing test says so instead.
 */
export function describeWithClis(title: string, binaries: readonly string[], body: () => void): void {
  const missing = binaries.filter((binary) => !installed(binary));
  if (missing.length > 0 && process.env.CI) {
    describe(title, () => {
      it('has its agent CLIs installed (CI installs every agent CLI)', () => {
        throw new Error(`${title}: ${missing.join(', ')} not installed`);
      });
    });
    return;
  }
  if (missing.length > 0) console.log(`skipping ${title}: ${missing.join(', ')} not installed`);
  describe.skipIf(missing.length > 0)(title, body);
}
