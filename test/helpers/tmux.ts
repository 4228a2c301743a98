import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

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
