import { type ChildProcess, spawn } from 'node:child_process';
import { killGroup } from './server-process.ts';

export type Ran = { code: number | null; stdout: string; stderr: string };

/**
 * `command args` in its own process group, its output kept, killed (the whole group) after
 * `timeoutMs`; every one still running is killed by the `killAll` it returns beside.
 */
export function boundedRunner(): {
  run(
    command: string,
    args: readonly string[],
    options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
  ): Promise<Ran>;
  killAll(): void;
} {
  const started = new Set<ChildProcess>();
  return {
    run: (command, args, { cwd, env, timeoutMs }) =>
      new Promise((resolve) => {
        const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        started.add(child);
        let stdout = '';
        let stderr = '';
        child.stdout?.on('data', (d: Buffer) => {
          stdout += d.toString();
        });
        child.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString();
        });
        const timer = setTimeout(() => {
          stderr += `\n[killed after ${timeoutMs} ms]`;
          killGroup(child, 'SIGKILL');
        }, timeoutMs);
        child.once('close', (code) => {
          clearTimeout(timer);
          started.delete(child);
          resolve({ code, stdout, stderr });
        });
      }),
    killAll: () => {
      for (const child of started) killGroup(child, 'SIGKILL');
    },
  };
}
