/**
 * A sandboxed agent never outlives the process that started it, however early that one dies. bwrap's
 * --die-with-parent takes hold some milliseconds after bwrap starts; a server killed before then
 * left the sandbox running, its agent working unwatched (seen after CI runs). The lifeline
 * (sandboxInit, src/platform/sandbox/argv.ts) closes that gap: its end of file kills the sandbox.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killUntilNone, pidsWith, waitFor } from '../../helpers/processes.ts';
import { sandboxSupport } from '../../helpers/sandbox-support.ts';
import { tempDir } from '../../helpers/server-process.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const support = sandboxSupport();
const markers: number[] = [];

afterAll(async () => {
  for (const m of markers) await killUntilNone(() => pidsWith(`sleep ${m}`).map((pid) => ({ pid })));
});

const LAUNCH = (dir: string) =>
  `{ writable: [${JSON.stringify(dir)}], readOnly: [], hidden: [], network: { kind: 'open' } }`;

/**
 * A process that starts `sleep <marker>` in a sandbox and kills itself at once (SIGKILL): as an
 * agent (spawnAgent), or as a gate or rig command (runCommand, wrapped as the engine wraps them).
 */
function starterScript(dir: string, marker: number, as: 'agent' | 'command'): string {
  const file = join(dir, `starter-${as}.ts`);
  const src = (path: string) => JSON.stringify(join(ROOT, 'src', path));
  const start =
    as === 'agent'
      ? `import { spawnAgent } from ${src('agents/spawn-agent.ts')};
spawnAgent({ command: 'sh', args: ['-c', 'sleep ${marker}'], cwd: ${JSON.stringify(dir)}, env: process.env, stdin: '', mark: 'lifeline-${marker}', sandbox: ${LAUNCH(dir)} });`
      : `import { runCommand } from ${src('platform/processes/run-command.ts')};
import { sandboxedCommand } from ${src('platform/sandbox/index.ts')};
void runCommand({ command: 'sleep ${marker}', cwd: ${JSON.stringify(dir)}, timeoutMs: 60_000, markName: 'RIBOSOME_GATE',
  wrap: (line) => sandboxedCommand(line, ${LAUNCH(dir)}) });`;
  writeFileSync(file, `${start}\nprocess.kill(process.pid, 'SIGKILL');\n`);
  return file;
}

describe.skipIf(!support.ok)('a sandboxed process whose starter dies as it starts', () => {
  for (const as of ['agent', 'command'] as const) {
    it(`ends with it, every time, without anyone to clean up (${as === 'agent' ? 'an agent' : 'a gate or rig command'})`, async () => {
      const t = tempDir();
      try {
        for (let round = 0; round < 5; round++) {
          const marker = 30_000 + Math.floor(Math.random() * 5000);
          markers.push(marker);
          const starter = spawn(
            process.execPath,
            ['--disable-warning=ExperimentalWarning', starterScript(t.path, marker, as)],
            { stdio: 'ignore' },
          );
          const died = await new Promise<NodeJS.Signals | null>((r) =>
            starter.once('exit', (_code, signal) => r(signal)),
          );
          expect(died).toBe('SIGKILL');
          // The sandbox may have started its command before the lifeline's watcher saw the end.
          await waitFor(
            () => pidsWith(`sleep ${marker}`).length === 0,
            `sleep ${marker} to be ended`,
            10_000,
          );
        }
      } finally {
        t.remove();
      }
    });
  }
});
