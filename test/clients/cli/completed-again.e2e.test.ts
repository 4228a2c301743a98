/**
 * A completed execution, started again and exported again through the real binary: the start that
 * has nothing to do leaves no run, `export` finds the only execution as `runs` does, and exporting the
 * same checkpoints twice makes the same commits.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRow } from '../../../src/clients/runs/run-rows.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { ROOT, runCli, runToEnd, tempDir } from '../../helpers/server-process.ts';

const { temps } = e2eResources();
const DEMO_PLAN = join(ROOT, 'examples/demo/plan.yaml');
const DEMO_SCRIPT = join(ROOT, 'examples/scripts/demo.yaml');

async function cli(args: string[], cwd: string) {
  const proc = runCli(args, { cwd });
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

async function runs(dir: string): Promise<RunRow[]> {
  const listed = await cli(['runs', '--json'], dir);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as RunRow[];
}

describe('a completed execution started again', () => {
  it('leaves no new run; export defaults to the only execution and makes the same commits again', async () => {
    const t = tempDir();
    temps.push(t);
    const dir = t.path;
    const exec = join(dir, 'ribosome-runs', 'demo');
    const first = await runToEnd(DEMO_PLAN, exec, DEMO_SCRIPT);
    expect(first.code, first.stderr).toBe(0);
    const before = await runs(dir);
    expect(before.map((r) => r.status)).toEqual(['completed']);

    // Nothing to do: the start leaves the history as it was (no `$0.0000 completed` run).
    const again = await runToEnd(DEMO_PLAN, exec, DEMO_SCRIPT);
    expect(again.code, again.stderr).toBe(0);
    expect(await runs(dir)).toEqual(before);

    // export without --execution: the only execution under ./ribosome-runs, as for `runs`.
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    const exported: string[] = [];
    for (const branch of ['result', 'again']) {
      const out = await cli(['export', '--to-branch', branch, '--repo', repo], dir);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain(`branch ${branch} in ${repo}, 4 commit(s)`);
      exported.push(git(repo, 'rev-parse', branch));
    }
    // The same checkpoints, the same commits: both dates are the checkpoint's, not the clock's.
    expect(exported[1]).toBe(exported[0]);
    const [committed, trailer] = git(
      repo,
      'log',
      '-1',
      '--format=%cI%n%(trailers:key=Ribosome-Timestamp,valueonly)',
      'result~2',
    ).split('\n');
    expect(Date.parse(committed ?? '')).toBe(Math.floor(Date.parse(trailer ?? '') / 1000) * 1000);

    // With none or several executions there, export says so as the reading commands do.
    const none = await cli(['export', '--patch', 'x.patch'], repo);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no execution under ribosome-runs; name one with --execution DIR');
  }, 150_000);
});
