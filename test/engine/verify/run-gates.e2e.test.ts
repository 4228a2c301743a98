import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventInput } from '../../../src/core/protocol/index.ts';
import { GATE_MARK, runGates } from '../../../src/engine/verify/run-gates.ts';
import { pidsWith, waitFor } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

type Seen = { type: 'verify.started' | 'verify.output' | 'verify.completed'; data: Record<string, unknown> };

function setup() {
  const t = tempDir();
  temps.push(t);
  const root = join(t.path, 'agentRoot');
  mkdirSync(join(root, 'pkg/app'), { recursive: true });
  const seen: Seen[] = [];
  const publish = async <T extends Seen['type']>(type: T, data: EventInput<T>) => {
    seen.push({ type, data: data as Record<string, unknown> });
  };
  return { root, seen, publish };
}

const gate = (run: string, extra: { timeoutMs?: number; cwd?: string } = {}) => ({
  run,
  timeoutMs: extra.timeoutMs ?? 20_000,
  cwd: extra.cwd ?? '.',
});

describe('verification gates', () => {
  it('run in order in their cwd inside the agent root; all passing is a pass', async () => {
    const { root, seen, publish } = setup();
    const outcome = await runGates({
      codonId: 'c',
      gates: [gate('pwd'), gate('pwd; echo to-stderr >&2', { cwd: 'pkg/app' })],
      agentRoot: root,
      round: 0,
      signal: new AbortController().signal,
      publish,
    });
    expect(outcome).toEqual({ kind: 'passed' });
    expect(seen.map((e) => `${e.type} ${e.data.gate}`)).toEqual([
      'verify.started 0',
      'verify.output 0',
      'verify.completed 0',
      'verify.started 1',
      'verify.output 1',
      'verify.output 1',
      'verify.completed 1',
    ]);
    const outputs = seen.filter((e) => e.type === 'verify.output').map((e) => e.data);
    expect(outputs[0]).toMatchObject({ stream: 'stdout', text: `${root}\n` });
    // Two pipes: which one is read first is the kernel's choice.
    expect(outputs.slice(1)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stream: 'stdout', text: `${join(root, 'pkg/app')}\n` }),
        expect.objectContaining({ stream: 'stderr', text: 'to-stderr\n' }),
      ]),
    );
    expect(seen.at(-1)?.data).toMatchObject({ passed: true, exitCode: 0, timedOut: false });
  });

  it("gates see the codon's env, as its agent and rig steps do", async () => {
    const { root, publish } = setup();
    const check = gate('test "$API_URL" = "http://127.0.0.1:9/api" && test -n "$PATH"');
    const run = (env?: Record<string, string>) =>
      runGates({
        codonId: 'c',
        gates: [check],
        agentRoot: root,
        ...(env ? { env } : {}),
        round: 0,
        signal: new AbortController().signal,
        publish,
      });
    expect(await run({ API_URL: 'http://127.0.0.1:9/api' })).toEqual({ kind: 'passed' });
    expect((await run()).kind).toBe('failed');
  });

  it('a failing gate stops the rest and reports its command, exit code and output tail', async () => {
    const { root, seen, publish } = setup();
    const outcome = await runGates({
      codonId: 'c',
      gates: [gate('echo checking; echo "2 tests failed" >&2; exit 3'), gate('touch never-ran')],
      agentRoot: root,
      round: 2,
      signal: new AbortController().signal,
      publish,
    });
    expect(outcome).toMatchObject({
      kind: 'failed',
      failed: { gate: 0, gates: 2, command: expect.stringContaining('exit 3'), exitCode: 3, round: 2 },
    });
    if (outcome.kind !== 'failed') return;
    expect(outcome.failed.outputTail).toContain('checking\n');
    expect(outcome.failed.outputTail).toContain('2 tests failed\n');
    expect(seen.filter((e) => e.type === 'verify.started')).toHaveLength(1);
    expect(seen.at(-1)).toMatchObject({
      type: 'verify.completed',
      data: { passed: false, exitCode: 3, round: 2, outputTail: outcome.failed.outputTail },
    });
  });

  it('a gate past its timeoutMs is ended, with its whole process tree, and fails', async () => {
    const { root, publish } = setup();
    const marker = 30_000 + Math.floor(Math.random() * 5_000);
    const outcome = await runGates({
      codonId: 'c',
      gates: [gate(`(setsid sleep ${marker + 1} &); echo started; sleep ${marker}`, { timeoutMs: 500 })],
      agentRoot: root,
      round: 0,
      signal: new AbortController().signal,
      publish,
    });
    expect(outcome).toMatchObject({ kind: 'failed', failed: { timedOut: true, exitCode: null } });
    expect(pidsWith(`sleep ${marker}`)).toEqual([]);
    expect(pidsWith(`sleep ${marker + 1}`)).toEqual([]);
  });

  it('streams output while the gate runs, not only at its end', async () => {
    const { root, seen, publish } = setup();
    const abort = new AbortController();
    const running = runGates({
      codonId: 'c',
      gates: [gate('echo first-line; sleep 30')],
      agentRoot: root,
      round: 0,
      signal: abort.signal,
      publish,
      flushMs: 20,
    });
    await waitFor(() => seen.some((e) => e.type === 'verify.output'), 'the first output', 10_000);
    expect(seen.some((e) => e.type === 'verify.completed')).toBe(false);
    expect(seen.find((e) => e.type === 'verify.output')?.data.text).toBe('first-line\n');
    abort.abort();
    expect(await running).toEqual({ kind: 'stopped' });
    expect(seen.at(-1)).toMatchObject({ type: 'verify.completed', data: { passed: false, stopped: true } });
  });

  it('records each command with its mark while it runs, so a restarted server can end it', async () => {
    const { root, publish } = setup();
    const calls: Array<[number, boolean]> = [];
    let mark = '';
    await runGates({
      codonId: 'c',
      gates: [gate(`printf %s "$${GATE_MARK}"`)],
      agentRoot: root,
      round: 0,
      signal: new AbortController().signal,
      publish: async (type, data) => {
        if (type === 'verify.output') mark += (data as { text: string }).text;
        await publish(type, data);
      },
      onProcess: (pid, running, m) => {
        calls.push([pid, running]);
        expect(m).toMatch(/^[0-9a-f-]{36}$/);
      },
    });
    expect(calls).toHaveLength(2);
    expect(calls[0]?.[1]).toBe(true);
    expect(calls[1]).toEqual([calls[0]?.[0], false]);
    expect(mark).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a cwd that does not exist fails the gate with why', async () => {
    const { root, publish } = setup();
    const outcome = await runGates({
      codonId: 'c',
      gates: [gate('true', { cwd: 'missing' })],
      agentRoot: root,
      round: 0,
      signal: new AbortController().signal,
      publish,
    });
    expect(outcome).toMatchObject({
      kind: 'failed',
      failed: { startFailure: expect.stringContaining('ENOENT') },
    });
  });
});
