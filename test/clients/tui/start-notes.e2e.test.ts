import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../../src/platform/processes/process-tree.ts';
import { codonScript, simplePlan, writePlanAndScript } from '../../helpers/plans.ts';
import { waitForValue } from '../../helpers/processes.ts';
import { BIN, runCli } from '../../helpers/server-process.ts';
import { hasTmux, tmuxTestFile } from '../../helpers/tmux.ts';

/**
 * `ribosome run --web` on a terminal: the dashboard's address and what the start resumes are printed
 * before the terminal UI takes the screen, so the UI shows them itself: the address in its header,
 * both in its first notice and in its help.
 */

// A tmux server of our own (-L): kill-server closes only our terminal.
const { tmux, temp, track } = tmuxTestFile('ribosome-notes');

describe.skipIf(!hasTmux)('ribosome run --web under the terminal UI', () => {
  it('shows the dashboard address and the resume line inside the UI', { timeout: 90_000 }, async () => {
    const files = writePlanAndScript(temp.path, simplePlan(['one']), codonScript({ one: 'ok' }));
    const exec = join(temp.path, 'exec');
    // A first start runs the plan: the second one resumes the execution.
    const first = runCli([
      'run',
      files.plan,
      '--headless',
      '--exit-when-done',
      '--execution',
      exec,
      '--scripted-provider',
      files.script,
    ]);
    expect((await first.exited).code).toBe(0);

    const err = join(temp.path, 'err.txt');
    const program = `NO_COLOR=1 '${BIN}' run '${files.plan}' --web --web-port 0 --no-autostart --execution '${exec}' --scripted-provider '${files.script}' 2> '${err}'`;
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'run', '-x', '200', '-y', '30', 'sh', '-c', program);
    const screen = () => tmux('capture-pane', '-p', '-t', 'run');
    const shown = await waitForValue(
      'the UI to show the plan it resumed done (the server idles on the completed run)',
      () => (screen().includes('plan done') ? screen() : undefined),
      60_000,
    );
    const serverPid = (
      JSON.parse(readFileSync(join(exec, '.ribosome/runtime.lock'), 'utf8')) as { pid: number }
    ).pid;
    track(serverPid);
    const printed = readFileSync(err, 'utf8');
    const address = /dashboard (http:\/\/\S+)/.exec(printed)?.[1];
    expect(address, printed).toBeDefined();
    // The header: the address the start printed (hidden by the UI's screen until now).
    expect(shown).toContain(`dashboard ${address}`);
    tmux('send-keys', '-t', 'run', '?');
    const help = await waitForValue(
      'the help',
      () => (screen().includes('esc or ? closes this help') ? screen() : undefined),
      20_000,
    );
    expect(help).toContain(`dashboard ${address}`);
    // Nothing to run: no run begins, so it resumes the completed run 1.
    expect(help).toMatch(/resuming \S*exec: run 1, 1 of 1 codons done/);
    tmux('send-keys', '-t', 'run', 'Escape');
    tmux('send-keys', '-t', 'run', 'q');
    await waitForValue('the server to exit', () => (isAlive(serverPid) ? undefined : true), 20_000);
    expect(existsSync(join(exec, '.ribosome/runtime.lock'))).toBe(false);
  });
});
