import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll } from 'vitest';
import { isAlive } from '../../src/platform/processes/process-tree.ts';
import { tempDir } from './server-process.ts';

/** Whether tmux is installed (`.ci/run` installs it; tests that need it say so when they skip). */
export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * A tmux server of our own (-L socket named after `prefix` and this process): nothing else's
 * sessions are touched, and kill-server ends only ours.
 */
export function ownTmux(prefix: string): (...args: string[]) => string {
  const socket = `${prefix}-${process.pid}-${randomUUID().slice(0, 8)}`;
  return (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
}

/**
 * What a terminal-UI test file runs in: its own tmux server and temp directory, and the server it
 * started (`track(pid)`), all ended after the file. Call at the file's top level.
 */
export function tmuxTestFile(prefix: string) {
  const tmux = ownTmux(prefix);
  const temp = tempDir(`${prefix}-`);
  let serverPid: number | undefined;
  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // Never started, or already gone.
    }
    if (serverPid !== undefined && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
    temp.remove();
  });
  return {
    tmux,
    temp,
    track: (pid: number) => {
      serverPid = pid;
    },
  };
}
