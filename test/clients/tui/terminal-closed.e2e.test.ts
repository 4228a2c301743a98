import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../../src/platform/processes/process-tree.ts';
import { simplePlan, writePlanAndScript } from '../../helpers/plans.ts';
import { waitForValue } from '../../helpers/processes.ts';
import { BIN } from '../../helpers/server-process.ts';
import { hasTmux, tmuxTestFile } from '../../helpers/tmux.ts';

/**
 * `ribosome run` with its terminal UI, in a terminal that goes away (a closed window, a dropped SSH
 * session, a killed tmux): the server stops like after q, instead of spinning on writes to the dead
 * terminal and filling its journal with errors about them.
 */

// A tmux server of our own (-L): kill-server closes only our terminal.
const { tmux, temp, track } = tmuxTestFile('ribosome-hup');

describe.skipIf(!hasTmux)('ribosome run in a terminal that closes', () => {
  it('stops the server (lock released, no error flood in the journal)', { timeout: 90_000 }, async () => {
    const files = writePlanAndScript(temp.path, simplePlan(['one']), 'turns: []\n');
    const exec = join(temp.path, 'exec');
    const lock = join(exec, '.ribosome/runtime.lock');
    const program = `NO_COLOR=1 '${BIN}' run '${files.plan}' --no-autostart --execution '${exec}' --scripted-provider '${files.script}'`;
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'run', '-x', '100', '-y', '30', 'sh', '-c', program);
    await waitForValue(
      'the UI to show the idle run',
      () => (tmux('capture-pane', '-p', '-t', 'run').includes('idle · next: one') ? true : undefined),
      60_000,
    );
    const pid = (JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid;
    track(pid);

    tmux('kill-server');
    await waitForValue('the server to exit', () => (isAlive(pid) ? undefined : true), 20_000);
    expect(existsSync(lock)).toBe(false);
    const db = new DatabaseSync(join(exec, '.ribosome/ribosome.db'), { readOnly: true });
    const { n } = db
      .prepare("SELECT count(*) AS n FROM events WHERE type = 'error' AND json LIKE '%INTERNAL_ERROR%'")
      .get() as { n: number };
    db.close();
    expect(n).toBe(0);
  });
});
