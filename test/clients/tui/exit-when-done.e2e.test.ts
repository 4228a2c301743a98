import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codonScript, simplePlan, writePlanAndScript } from '../../helpers/plans.ts';
import { waitForValue } from '../../helpers/processes.ts';
import { BIN, tempDir } from '../../helpers/server-process.ts';
import { hasTmux, ownTmux } from '../../helpers/tmux.ts';

/**
 * `ribosome run --exit-when-done` (what `ribosome demo` runs) on a terminal: the terminal UI ends by
 * itself once the plan is done, with the exit code and summary line of the headless run; a plan with a
 * failed codon exits 1. Without the flag the UI keeps serving (test/clients/tui/terminal-closed.e2e.test.ts).
 */

// A tmux server of our own (-L): kill-server closes only our terminals.
const tmux = ownTmux('ribosome-ewd');
const temp = tempDir('ribosome-ewd-');

afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // Never started, or already gone.
  }
  temp.remove();
});

/** Runs `ribosome run PLAN --exit-when-done` in a tmux terminal to its end: exit code and stderr. */
async function runInTerminal(name: string, plan: string, script: string) {
  const dir = join(temp.path, name);
  mkdirSync(dir);
  const files = writePlanAndScript(dir, plan, script);
  const rc = join(dir, 'rc');
  const err = join(dir, 'err.txt');
  const program = `NO_COLOR=1 '${BIN}' run '${files.plan}' --exit-when-done --execution '${join(dir, 'exec')}' --scripted-provider '${files.script}' 2> '${err}'; echo $? > '${rc}'`;
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', name, '-x', '100', '-y', '30', 'sh', '-c', program);
  // Without the fix the UI waits for q: the rc file never appears.
  const code = await waitForValue(
    'ribosome run to exit by itself',
    () =>
      existsSync(rc) && readFileSync(rc, 'utf8').trim() !== '' ? readFileSync(rc, 'utf8').trim() : undefined,
    60_000,
  );
  return { code: Number(code), stderr: readFileSync(err, 'utf8') };
}

describe.skipIf(!hasTmux)('ribosome run --exit-when-done on a terminal', () => {
  it('ends the terminal UI once the plan is done: exit 0 and the summary line', {
    timeout: 90_000,
  }, async () => {
    const ran = await runInTerminal(
      'done',
      simplePlan(['one', 'two']),
      codonScript({ one: 'ok', two: 'ok' }),
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('ribosome: done: 2/2 codons');
    expect(ran.stderr).toContain('exit 0 (the plan has run)');
  });

  it('a failed codon ends it too, with exit 1', { timeout: 90_000 }, async () => {
    const ran = await runInTerminal(
      'failed',
      simplePlan(['one', 'two']),
      codonScript({ one: 'ok', two: 500 }),
    );
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stderr).toMatch(/ribosome: .*1\/2 codons.*exit 1/);
  });
});
