import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentAdapter } from '../../../src/agents/agent-adapter.ts';
import { runCommand } from '../../../src/agents/builtin/tools/bash.ts';
import { spawnAgent } from '../../../src/agents/spawn-agent.ts';
import { CodonRun } from '../../../src/engine/codon-run.ts';
import { classifyOutcome } from '../../../src/engine/outcome/failure.ts';
import { runRigSetup } from '../../../src/engine/rig-setup.ts';
import { gitFailure, gitRunner } from '../../../src/execution/checkpoints/git-runner.ts';
import { spawnSafely } from '../../../src/platform/processes/spawn-safely.ts';

/**
 * A process that cannot be started is an error value on every spawn path, never a crash. A missing
 * binary (ENOENT) goes the same way as EMFILE; EMFILE itself, which leaves stdio null, is produced for
 * real in a child process with a low `ulimit -n`.
 */
const dir = mkdtempSync(join(tmpdir(), 'ribosome-spawn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MISSING = join(dir, 'no-such-program');
const silent = pino({ level: 'silent' });

describe('spawn failures are values', () => {
  it('spawnSafely: a missing program is not started, with the reason and what it means', async () => {
    const started = spawnSafely(MISSING, [], { stdio: 'pipe' });
    expect(started.ok).toBe(false);
    if (!started.ok)
      expect(await started.why).toMatch(/no-such-program ENOENT \(the program .* does not exist\)/);
  });

  it('git runner: a git that cannot be started is a failed command naming why', async () => {
    const out = await gitRunner({ env: {}, cwd: dir, timeoutMs: 5_000, gitBinary: MISSING })(['status']);
    expect(out).toMatchObject({ code: -1, spawnError: expect.stringContaining('ENOENT') });
    expect(gitFailure('read the status', out).error.message).toMatch(
      /^Could not read the status: spawn .*ENOENT/,
    );
  });

  it('agent: a run that ends at once, no output, exit 127, startFailure saying why', async () => {
    const agent = spawnAgent({ command: MISSING, args: [], cwd: dir, env: {}, stdin: 'hi', mark: 'm' });
    const stderr: string[] = [];
    agent.onStderr((t) => stderr.push(t));
    expect(await agent.exited).toEqual({ type: 'error', code: 127 });
    expect(agent.startFailure).toContain('ENOENT');
    const lines: unknown[] = [];
    for await (const line of agent.lines) lines.push(line);
    expect(lines).toEqual([]);
    await agent.stop(0);
    expect(stderr.join('\n')).toContain('could not start the agent');
  });

  it('codon run: an agent that cannot start (or an adapter that throws) fails the codon with the reason', async () => {
    const start = {
      prompt: 'p',
      model: 'm',
      cwd: dir,
      env: {},
      providerBaseUrl: 'http://127.0.0.1:1',
      stateDir: join(dir, 'state'),
    };
    const missing: AgentAdapter = {
      kind: 'builtin',
      start: (o) =>
        spawnAgent({ command: MISSING, args: [], cwd: o.cwd, env: {}, stdin: o.prompt, mark: o.mark }),
    };
    const throwing: AgentAdapter = {
      kind: 'claude-code',
      start: () => {
        throw new Error('EMFILE: too many open files, mkdir');
      },
    };
    for (const [adapter, why] of [
      [missing, 'ENOENT'],
      [throwing, 'too many open files'],
    ] as const) {
      const run = new CodonRun({
        codonId: 'c',
        adapter,
        start,
        timeoutMs: 10_000,
        stallTimeoutMs: 10_000,
        stopGraceMs: 100,
        maxResultChars: 1000,
        logger: silent,
        onOutput: () => {},
      });
      const outcome = await run.outcome;
      expect(outcome.startFailure).toContain(why);
      const { success, failureReason } = classifyOutcome(outcome);
      expect(success).toBe(false);
      expect(failureReason?.message).toMatch(new RegExp(`^the agent could not be started: .*${why}`));
    }
  });

  it('Bash tool: an error result for the model', async () => {
    expect(await runCommand('echo hi', join(dir, 'no-such-root'), 5_000)).toEqual({
      isError: true,
      content: expect.stringMatching(/^Cannot run bash: spawn bash ENOENT/),
    });
  });

  it('rig setup: the step fails with the reason', async () => {
    const result = await runRigSetup({
      agentRoot: dir,
      executionDir: dir,
      onOutput: () => {},
      steps: [
        {
          type: 'run',
          command: 'true',
          cwd: { base: 'agentRoot', path: 'no-such-dir' },
          allowFailure: false,
        },
      ],
    });
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^rig setup step 1 \(\$ true\) failed: could not be started: .*ENOENT/),
    });
  });

  it('out of file descriptors (EMFILE, no stdio at all): every spawn path reports it, none crashes', () => {
    const fixture = resolve(import.meta.dirname, 'fixtures/out-of-fds.ts');
    const ran = spawnSync('bash', ['-c', 'ulimit -n 64 && exec "$0" "$1"', process.execPath, fixture], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(ran.stderr).not.toMatch(/Unhandled|TypeError/);
    expect(ran.status).toBe(0);
    const report = JSON.parse(ran.stdout);
    const emfile = expect.stringMatching(/EMFILE \(too many open files/);
    expect(report).toMatchObject({
      direct: emfile,
      git: emfile,
      bash: { isError: true, content: emfile },
      agent: { exit: { type: 'error', code: 127 }, startFailure: emfile, lines: 0 },
      rig: { ok: false, message: emfile },
      // Descriptors free again: it works.
      again: { isError: false, content: 'again' },
    });
  });

  it('a spawn that fails for want of descriptors gives back the pipes Node made for it, and lets the process exit', () => {
    const fixture = resolve(import.meta.dirname, 'fixtures/spawn-leak.ts');
    const ran = spawnSync('bash', ['-c', 'ulimit -n 64 && exec "$0" "$1"', process.execPath, fixture], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    // Killed by the timeout (status null) when a leftover pipe keeps it alive.
    expect(ran.status).toBe(0);
    const { base, rounds } = JSON.parse(ran.stdout) as {
      base: number;
      rounds: { spare: number; failed: boolean; open: number }[];
    };
    const failed = rounds.filter((r) => r.failed);
    expect(failed.length).toBeGreaterThan(3);
    // The first spawn may open one descriptor of Node's own for good; failures after it add none.
    expect(failed[0]?.open).toBeLessThanOrEqual(base + 1);
    for (const round of failed) expect(round).toMatchObject({ open: failed[0]?.open });
  });
});
