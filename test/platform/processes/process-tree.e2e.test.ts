import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAgent } from '../../../src/agents/spawn-agent.ts';
import { endMarked, isAlive, processesWithEnv } from '../../../src/platform/processes/process-tree.ts';
import { pidsWith, waitFor } from '../../helpers/processes.ts';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
});

/**
 * Starts `script` under bash with the mark, detached, and returns the shell's pid. The script reads
 * its sleep durations from $B, so only the sleeps themselves hold them in their command lines.
 */
function startMarked(mark: string, base: number, script: string): number {
  const child = spawn('bash', ['-c', script], {
    env: { ...process.env, PROCESS_TREE_TEST_MARK: mark, B: String(base) },
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  if (child.pid) started.push(child.pid);
  return child.pid ?? -1;
}

describe('endMarked', () => {
  it('ends every process carrying the mark, even detached ones, and none carrying another', async () => {
    const m = 40_000 + Math.floor(Math.random() * 5000);
    const mine = randomUUID();
    const other = randomUUID();
    // Out of the tree every way a shell allows: a new session, a double fork, nohup, disown.
    startMarked(
      mine,
      m,
      'setsid sleep $B & ( (sleep $((B+1)) &) & ); nohup sleep $((B+2)) >/dev/null 2>&1 & sleep $((B+3)) & disown; wait',
    );
    const bystander = startMarked(other, m + 4, 'exec sleep $B');
    await waitFor(
      () => [0, 1, 2, 3, 4].every((i) => pidsWith(`sleep ${m + i}`).length > 0),
      'the sleeps to start',
      10_000,
    );
    for (const i of [0, 1, 2, 3]) started.push(...pidsWith(`sleep ${m + i}`)); // for cleanup on failure

    expect(await endMarked('PROCESS_TREE_TEST_MARK', mine, 1_000)).toBeGreaterThanOrEqual(5);
    for (const i of [0, 1, 2, 3]) expect(pidsWith(`sleep ${m + i}`)).toEqual([]);
    expect(processesWithEnv('PROCESS_TREE_TEST_MARK', mine)).toEqual([]);
    // Another run's process is left alone.
    expect(isAlive(bystander)).toBe(true);
    expect(processesWithEnv('PROCESS_TREE_TEST_MARK', other)).toEqual([bystander]);
    expect(await endMarked('PROCESS_TREE_TEST_MARK', 'nobody-has-this', 100)).toBe(0);
  });
});

describe('an agent run stopped after its agent exited', () => {
  it('ends what the agent left in its process group, even a process that dropped the mark', async () => {
    const m = 45_000 + Math.floor(Math.random() * 5000);
    // Left in the agent's group with an empty environment: only the group still finds it.
    const run = spawnAgent({
      command: 'bash',
      args: ['-c', `env -i sleep ${m} >/dev/null 2>&1 </dev/null & echo '{"type":"result"}'`],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
      stdin: '',
      mark: randomUUID(),
    });
    for await (const _ of run.lines) {
      // Read to the end.
    }
    await run.exited;
    await waitFor(() => pidsWith(`sleep ${m}`).length > 0, 'the sleep to start', 10_000);
    started.push(...pidsWith(`sleep ${m}`)); // for cleanup on failure
    await run.stop(0);
    await waitFor(() => pidsWith(`sleep ${m}`).length === 0, 'the sleep to end', 5_000);
  });
});

describe('an agent run stopped while its agent runs (a stop we asked for reads as one)', () => {
  /** An agent that says it is ready, then waits; on SIGTERM it does `onTerm`. */
  const agent = (onTerm: string) =>
    spawnAgent({
      command: 'bash',
      args: [
        '-c',
        `trap '${onTerm}' TERM; echo '{"type":"system","subtype":"init"}'; while true; do sleep 0.05; done`,
      ],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
      stdin: '',
      mark: randomUUID(),
    });

  it.each([
    ['exits 143 on SIGTERM (Claude Code)', 'exit 143', 'SIGTERM'],
    ['exits 1 on SIGTERM (the built-in agent)', 'exit 1', 'SIGTERM'],
    ['exits 0 on SIGTERM', 'exit 0', 'SIGTERM'],
    ['ignores SIGTERM until SIGKILL', 'true', 'SIGKILL'],
  ])('an agent that %s', async (_name, onTerm, signal) => {
    const run = agent(onTerm);
    const lines = run.lines[Symbol.asyncIterator]();
    await lines.next();
    await run.stop(300);
    expect(await run.exited).toEqual({ type: 'killed', signal });
  });

  it('an agent that exits on its own, then is stopped, keeps its own exit', async () => {
    const run = spawnAgent({
      command: 'bash',
      args: ['-c', 'exit 3'],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '' },
      stdin: '',
      mark: randomUUID(),
    });
    const exit = await run.exited;
    await run.stop(0);
    expect(exit).toEqual({ type: 'error', code: 3 });
  });
});
