/**
 * `ribosome runs` and `ribosome log` through the real binary on an execution whose run waits for a
 * usage limit: its database written as a server writes it, its runtime lock held by this test's
 * process (a live server holds the execution, so the run is running, not crashed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRow } from '../../../src/clients/runs/run-rows.ts';
import { executionLayout } from '../../../src/execution/layout/layout.ts';
import { acquireRuntimeLock, type RuntimeLock } from '../../../src/execution/layout/runtime-lock.ts';
import { runCli, tempDir } from '../../helpers/server-process.ts';
import { ev } from '../model/helpers/fake-client.ts';
import { usageWaitExecution } from '../runs/helpers/usage-wait-execution.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const clean of cleanups.splice(0).reverse()) clean();
});

async function cli(args: string[]) {
  const proc = runCli(args);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

// The CLI says clocks in its own local time, as of its own now: the reset is two hours away, so
// whether its clock carries the day depends on when the test runs.
const CLOCK = '(?:[A-Z][a-z]{2} )?\\d\\d:\\d\\d';

describe('runs and log of an execution waiting for a usage limit', () => {
  it('runs says until when it waits; log prints the wait and its end; once it ended, runs says running', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const now = Date.now();
    const wait = {
      resetsAt: new Date(now + 2 * 3_600_000).toISOString(),
      until: new Date(now + 2 * 3_600_000 + 60_000).toISOString(),
    };
    const exec = usageWaitExecution(t.path, wait);
    cleanups.push(exec.close);
    const held = acquireRuntimeLock(executionLayout(exec.dir).lockFile);
    if (!held.ok) throw new Error('the execution is held already');
    const lock: RuntimeLock = held.lock;
    lock.setAddress('127.0.0.1', 9);
    cleanups.push(() => lock.release());

    const json = await cli(['runs', '--execution', exec.dir, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const [row] = JSON.parse(json.stdout) as RunRow[];
    expect(row).toMatchObject({
      id: 'r1',
      status: 'running',
      usageWait: { codonId: 'one', agent: 'claude-code', ...wait },
    });

    const runs = await cli(['runs', '--execution', exec.dir]);
    expect(runs.code, runs.stderr).toBe(0);
    expect(runs.stdout.split('\n')[1]).toMatch(
      new RegExp(`^r1\\s+waiting for usage limit until ${CLOCK} \\(one\\)\\s+0/\\?`),
    );

    exec.append(
      ev('usageLimit.ended', { codonId: 'one', how: 'command', command: 'codon.next', message: 'ended' }),
    );
    const log = await cli(['log', '--execution', exec.dir]);
    expect(log.code, log.stderr).toBe(0);
    const lines = log.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      '> one: one (claude-code)',
      expect.stringMatching(
        new RegExp(
          `^< one FAILED \\(1\\.5s, \\$0\\.0100\\): \\[usage limit \\(resets ${CLOCK}\\)\\] You've hit your limit$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^~ one waits for the usage limit of claude-code to reset at ${CLOCK}, then starts again at ${CLOCK}: You've hit your limit · resets 3pm$`,
        ),
      ),
      '  still here',
      '~ one: the usage-limit wait ended (codon.next took over)',
    ]);

    const after = await cli(['runs', '--execution', exec.dir]);
    expect(after.stdout.split('\n')[1]).toMatch(/^r1\s+running \(failed: one\)\s+0\/\?/);
  });
});
