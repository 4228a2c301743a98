import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchSummary } from '../../../src/clients/batch/summary-schema.ts';
import { cliToEnd, journalRows, killAll, runCli, tempDir } from '../../helpers/server-process.ts';

/**
 * `ribosome batch` end to end (docs/batches.md): real `ribosome run` processes on the scripted
 * provider, real git workspaces, the batch directory read as a user would.
 */
let dir: { path: string; remove(): void };
let root: string;

const PLAN = `name: greet
agent: builtin
codons:
  - id: write
    prompt: Do write.
    verify:
      - run: test "$EXPECT" = ok
`;
/** The same codon, with an answer that takes its time: a job that is still running when the batch is killed. */
const SLOW_PLAN = PLAN.replace('Do write.', 'Do slow.');
const track = (name: string, prompt: string, delay: number) => `  - name: ${name}
    match: { firstUser: "${prompt}" }
    loop: true
    turns:
      - content:
          - text: Writing.
          - tool_use: { name: Write, input: { file_path: out.txt, content: "done" } }
        delayMs: ${delay}
      - content:
          - text: Wrote out.txt.
`;
/** A codon whose first answer reports 20 000 input tokens: $0.06 at claude-sonnet-4-5's price. */
const PRICEY = `  - name: pricey
    match: { firstUser: "Do pricey." }
    loop: true
    turns:
      - content: [{ text: Expensive thoughts. }]
        usage: { input_tokens: 20000 }
`;
const SCRIPT = `tracks:\n${track('write', 'Do write.', 0)}${track('slow', 'Do slow.', 4_000)}${PRICEY}turns: []\n`;

function batchFile(name: string, text: string): string {
  const file = join(root, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

const summaryOf = (name: string) =>
  BatchSummary.parse(JSON.parse(readFileSync(join(root, 'ribosome-batches', name, 'summary.json'), 'utf8')));
const runsOf = (execution: string) => new Set(journalRows(execution).map((r) => r.runId)).size;
/** `ribosome batch FILE` into the batch directory of its name under the test's folder. */
const batchArgs = (file: string, ...flags: string[]) => [
  'batch',
  file,
  '--dir',
  join(root, 'ribosome-batches', basename(file, '.yaml')),
  '--scripted-provider',
  join(root, 'script.yaml'),
  '--headless',
  ...flags,
];
const batch = (file: string, ...flags: string[]) => cliToEnd(batchArgs(file, ...flags), {}, 150_000);

beforeAll(() => {
  dir = tempDir('ribosome-batch-');
  root = dir.path;
  for (const repo of ['one', 'two']) {
    const path = join(root, 'repos', repo);
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'README'), `${repo}\n`);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: path });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
  }
  writeFileSync(join(root, 'plan.yaml'), PLAN);
  writeFileSync(join(root, 'slow.yaml'), SLOW_PLAN);
  writeFileSync(
    join(root, 'pricey.yaml'),
    PLAN.replace('Do write.', 'Do pricey.').replace(/ {4}verify:\n.*\n/, ''),
  );
  writeFileSync(join(root, 'script.yaml'), SCRIPT);
});

afterAll(() => {
  killAll();
  dir?.remove();
});

describe('ribosome batch', { timeout: 180_000 }, () => {
  it('a 2×2 matrix at --parallel 2: four executions, at most two at once; a job failing its gate fails alone', async () => {
    const file = batchFile(
      'matrix',
      `name: matrix
defaults: { plan: plan.yaml, vars: { EXPECT: ok } }
jobs:
  - { id: bad, vars: { EXPECT: no } }
matrix:
  workspace: [repos/one, repos/two]
  model: [claude-sonnet-4-5, claude-haiku-4-5]
`,
    );
    const result = await batch(file, '--parallel', '2');
    expect(result.code, result.stderr).toBe(1);
    const summary = summaryOf('matrix');
    expect(summary.state).toBe('finished');
    expect(summary.jobs.map((j) => [j.id, j.state])).toEqual([
      ['bad', 'failed'],
      ['one.claude-sonnet-4-5', 'passed'],
      ['one.claude-haiku-4-5', 'passed'],
      ['two.claude-sonnet-4-5', 'passed'],
      ['two.claude-haiku-4-5', 'passed'],
    ]);
    expect(summary.counts).toMatchObject({ passed: 4, failed: 1 });
    const bad = summary.jobs[0];
    expect(bad?.reason).toContain(
      'codon write failed (verify): verification gate 1/1 `test "$EXPECT" = ok` exited with code 1',
    );
    expect(bad?.metrics).toMatchObject({ codonsDone: 0, codonsTotal: 1, gatedCodons: 1, gatesFirstTry: 0 });
    // Each job is an ordinary execution of its own, cloned from its workspace, with its model.
    for (const job of summary.jobs.slice(1)) {
      const execution = join(root, 'ribosome-batches/matrix', job.execution);
      expect(readFileSync(join(execution, 'agentRoot/README'), 'utf8')).toBe(
        `${job.axes.workspace?.slice(6)}\n`,
      );
      expect(readFileSync(join(execution, 'agentRoot/out.txt'), 'utf8')).toBe('done');
      expect(job.metrics).toMatchObject({ codonsDone: 1, codonsTotal: 1, gatesFirstTry: 1 });
      expect(job.metrics?.costUsd).toBeGreaterThan(0);
      const models = journalRows(execution)
        .filter((r) => r.type === 'token.usage')
        .map((r) => r.data.modelId);
      expect(new Set(models)).toEqual(new Set([job.axes.model]));
    }
    expect(summary.spentUsd).toBeCloseTo(
      summary.jobs.reduce((sum, j) => sum + (j.metrics?.costUsd ?? 0), 0),
      9,
    );
    // At no moment did more than two jobs run.
    const spans = summary.jobs.map(
      (j) => [Date.parse(j.startedAt ?? ''), Date.parse(j.endedAt ?? '')] as const,
    );
    for (const [start] of spans) {
      expect(spans.filter(([s, e]) => s <= start && start < e).length).toBeLessThanOrEqual(2);
    }
    expect(result.stderr).toContain('matrix: 5 jobs: 4 passed, 1 failed');
    // The result files a CI system reads.
    const junit = readFileSync(join(root, 'ribosome-batches/matrix/junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).toHaveLength(5);
    expect(junit.match(/<failure /g)).toHaveLength(1);
    expect(junit).toContain('verification gate 1/1');
    const table = readFileSync(join(root, 'ribosome-batches/matrix/summary.md'), 'utf8');
    expect(table).toContain('| bad |');
    const report = readFileSync(join(root, 'ribosome-batches/matrix/report.md'), 'utf8');
    for (const model of ['claude-sonnet-4-5', 'claude-haiku-4-5']) expect(report).toContain(model);
    expect(readFileSync(join(root, 'ribosome-batches/matrix/report.html'), 'utf8')).toContain('<svg');
    // `ribosome runs` opens a job like any execution.
    const runs = await cliToEnd(['runs', '--execution', join(root, 'ribosome-batches/matrix/jobs/bad')]);
    expect(runs.stdout).toMatch(/failed/);
  });

  it('the batch budget: once spent, the running job is stopped and no new job starts', async () => {
    const file = batchFile(
      'budget',
      `name: budget
budget: { maxCostUsd: 0.05 }
defaults: { plan: plan.yaml, vars: { EXPECT: ok } }
jobs:
  - { id: slow, plan: slow.yaml }
  - { id: pricey, plan: pricey.yaml, model: claude-sonnet-4-5 }
  - { id: next, plan: plan.yaml }
`,
    );
    const result = await batch(file, '--parallel', '2');
    expect(result.code, result.stderr).toBe(1);
    const summary = summaryOf('budget');
    const spent = /^the batch budget \(\$0\.05\) is spent \(\$0\.06\d+\)$/;
    // pricey spends the budget with its answer; it ends a moment later, unless the batch (reading the
    // journals each second) saw the spend in that moment and stopped it too, which is as right.
    const [, pricey] = summary.jobs;
    if (pricey?.state === 'failed') expect(pricey.reason?.replace(/^stopped: /, '')).toMatch(spent);
    expect(
      summary.jobs.map((j) => [j.id, j.id === 'pricey' ? 'passed or stopped' : j.state, j.starts]),
    ).toEqual([
      ['slow', 'failed', 1],
      ['pricey', 'passed or stopped', 1],
      ['next', 'skipped', 0],
    ]);
    expect(['passed', 'failed']).toContain(pricey?.state);
    expect(summary.jobs[0]?.reason?.replace(/^stopped: /, '')).toMatch(spent);
    expect(summary.jobs[2]?.reason).toMatch(spent);
    // The slow job's codon was stopped through the protocol, as a person's force stop does.
    const stops = journalRows(join(root, 'ribosome-batches/budget/jobs/slow')).filter(
      (r) => r.type === 'codon.completed',
    );
    expect(stops.map((r) => (r.data.failureReason as { message?: string } | undefined)?.message)).toEqual([
      expect.stringMatching(/^stopped by a client: the batch budget \(\$0\.05\) is spent/),
    ]);
    expect(existsSync(join(root, 'ribosome-batches/budget/jobs/next/.ribosome'))).toBe(false);
    expect(summary.spentUsd).toBeGreaterThan(0.06);
  });

  it('--fail-fast: once a job fails, a running job is stopped whenever the stop lands, even between its codons', async () => {
    writeFileSync(
      join(root, 'two-slow.yaml'),
      'name: two\nagent: builtin\ncodons:\n  - { id: one, prompt: Do slow. }\n  - { id: two, prompt: Do slow. }\n  - { id: three, prompt: Do slow. }\n',
    );
    const file = batchFile(
      'fast',
      `name: fast
defaults: { vars: { EXPECT: ok } }
jobs:
  - { id: long, plan: two-slow.yaml }
  - { id: bad, plan: plan.yaml, vars: { EXPECT: no } }
  - { id: never, plan: plan.yaml }
`,
    );
    const result = await batch(file, '--parallel', '2', '--fail-fast');
    expect(result.code, result.stderr).toBe(1);
    const summary = summaryOf('fast');
    expect(summary.jobs.map((j) => [j.id, j.state])).toEqual([
      ['long', 'failed'],
      ['bad', 'failed'],
      ['never', 'skipped'],
    ]);
    expect(summary.jobs[0]?.reason).toBe('stopped: --fail-fast: job bad failed');
    expect(summary.jobs[0]?.metrics?.codonsDone).toBeLessThan(3);
  });

  it('kill -9 of the batch process, then the same command: finished jobs are not run again, the rest finish', async () => {
    const file = batchFile(
      'resume',
      `name: resume
defaults: { vars: { EXPECT: ok } }
jobs:
  - { id: quick, plan: plan.yaml }
  - { id: slow, plan: slow.yaml }
  - { id: later, plan: plan.yaml }
`,
    );
    const first = runCli(batchArgs(file, '--parallel', '2'));
    const summaryFile = join(root, 'ribosome-batches/resume/summary.json');
    // Wait until the quick job has passed while the slow one still runs.
    await expect
      .poll(
        () => {
          if (!existsSync(summaryFile)) return '';
          const s = summaryOf('resume');
          return s.jobs.map((j) => j.state).join(' ');
        },
        { timeout: 60_000, interval: 100 },
      )
      .toMatch(/^passed running /);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await batch(file, '--parallel', '2');
    expect(second.code, `${second.stderr}\n${second.stdout}`).toBe(0);
    expect(second.stderr).toContain('job quick: passed in an earlier batch process; not run again');
    const summary = summaryOf('resume');
    expect(summary.jobs.map((j) => [j.id, j.state, j.starts])).toEqual([
      ['quick', 'passed', 1],
      ['slow', 'passed', 1],
      ['later', 'passed', 1],
    ]);
    // A job followed by the second batch process is timed once: from its run's start to its end.
    for (const job of summary.jobs) {
      const span = Date.parse(job.endedAt ?? '') - Date.parse(job.startedAt ?? '');
      expect(Math.abs((job.durationMs ?? 0) - span), job.id).toBeLessThan(100);
    }
    // One run each: nothing was started twice.
    for (const id of ['quick', 'slow', 'later'])
      expect(runsOf(join(root, 'ribosome-batches/resume/jobs', id))).toBe(1);
  });

  it('bad input is refused before any job starts, each problem at its line', async () => {
    const file = batchFile(
      'broken',
      'name: broken\njobs:\n  - { id: a, plan: missing.yaml }\n  - { id: a, plan: plan.yaml, agent: nobody }\n',
    );
    const result = await batch(file);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken\.yaml:4:\d+/);
    expect(result.stderr).toContain('agent');
    expect(existsSync(join(root, 'ribosome-batches/broken'))).toBe(false);
    const model = batchFile(
      'model',
      'name: model\ndefaults: { plan: plan.yaml }\nmatrix: { model: ["a b"] }\n',
    );
    const badModel = await batch(model);
    expect(badModel.code).toBe(2);
    expect(badModel.stderr).toContain('model "a b" is not a model id');
    const noPlan = batchFile('noplan', 'name: noplan\njobs:\n  - { id: a, plan: missing.yaml }\n');
    const missing = await batch(noPlan);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('(job a) Cannot read the plan file: not found.');
    expect(missing.stderr).toContain('missing.yaml');
    const one = batchFile('one', 'name: one\njobs:\n  - { id: a, plan: plan.yaml }\n');
    for (const [flags, words] of [
      [['--parallel', '0'], '--parallel must be a whole number'],
      [['--max-cost', 'lots'], '--max-cost must be a positive number'],
      [['--job-index', '7'], '--job-index 7: the batch has 1 job (index 0)'],
      [['--sandbox', 'bogus'], '--sandbox must be auto, on or off'],
      [['--web-port', '80'], '--web-port goes with --web'],
    ] as const) {
      const refused = await batch(one, ...flags);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(words);
    }
  });

  it('each job alone by --job-index (as pods do), then batch report and batch export to branches', async () => {
    const file = batchFile(
      'pods',
      `name: pods
defaults: { plan: plan.yaml, vars: { EXPECT: ok } }
matrix: { workspace: [repos/one, repos/two] }
`,
    );
    const dirOf = join(root, 'ribosome-batches/pods');
    const [zero, one] = await Promise.all([batch(file, '--job-index', '0'), batch(file, '--job-index', '1')]);
    expect([zero.code, one.code], `${zero.stderr}${one.stderr}`).toEqual([0, 0]);
    // No pod writes the batch's summary: each leaves its own job's result.
    expect(existsSync(join(dirOf, 'summary.json'))).toBe(false);
    expect(existsSync(join(dirOf, 'results/one.json'))).toBe(true);
    const report = await cliToEnd(['batch', 'report', '--dir', dirOf]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toContain('pods: 2 jobs: 2 passed');
    expect(summaryOf('pods').jobs.map((j) => [j.id, j.state, j.starts])).toEqual([
      ['one', 'passed', 1],
      ['two', 'passed', 1],
    ]);
    expect(readFileSync(join(dirOf, 'junit.xml'), 'utf8').match(/<testcase /g)).toHaveLength(2);
    expect(existsSync(join(dirOf, 'report.html'))).toBe(true);
    const exported = await cliToEnd(['batch', 'export', '--dir', dirOf, '--to-branch', 'ribosome/']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('2 jobs exported');
    for (const repo of ['one', 'two']) {
      const branches = execFileSync('git', ['branch', '--list', 'ribosome/*'], {
        cwd: join(root, 'repos', repo),
      });
      expect(branches.toString().trim()).toBe(`ribosome/${repo}`);
      const files = execFileSync('git', ['show', '--name-only', '--format=', `ribosome/${repo}`], {
        cwd: join(root, 'repos', repo),
      });
      expect(files.toString()).toContain('out.txt');
    }
    // Again without --force: the branches are there, and each job says so.
    const again = await cliToEnd(['batch', 'export', '--dir', dirOf, '--to-branch', 'ribosome/']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/one: export: .* already has a branch ribosome\/one; --force replaces it/);
  });

  it('Ctrl-C stops the batch (exit 130); the stopped job resumes when the batch runs again; report waits for the batch', async () => {
    const file = batchFile(
      'interrupt',
      `name: interrupt
defaults: { vars: { EXPECT: ok } }
jobs:
  - { id: slow, plan: slow.yaml }
`,
    );
    const dirOf = join(root, 'ribosome-batches/interrupt');
    const first = runCli(batchArgs(file));
    await expect
      .poll(() => (existsSync(join(dirOf, 'summary.json')) ? summaryOf('interrupt').jobs[0]?.state : ''), {
        timeout: 60_000,
        interval: 100,
      })
      .toBe('running');
    // While the batch runs, its files are its own.
    const report = await cliToEnd(['batch', 'report', '--dir', dirOf]);
    expect(report.code).toBe(3);
    expect(report.stderr).toContain('runs this batch');
    const index = await cliToEnd(batchArgs(file, '--job-index', '0'));
    expect(index.code).toBe(3);
    first.child.kill('SIGINT');
    const stopped = await first.exited;
    expect(stopped.code, first.stderr()).toBe(130);
    expect(first.stderr()).toContain('stopped (run the same command again to resume)');
    expect(summaryOf('interrupt').jobs[0]).toMatchObject({
      state: 'pending',
      reason: 'stopped with the batch; it resumes when the batch runs again',
    });
    // Started again, killed -9 while its job runs, started a third time (it follows the job the
    // second left), then Ctrl-C: the followed job is stopped as well, and resumes at the next start.
    const second = runCli(batchArgs(file));
    await expect
      .poll(() => summaryOf('interrupt').jobs[0]?.starts, { timeout: 60_000, interval: 100 })
      .toBe(2);
    await expect
      .poll(() => summaryOf('interrupt').jobs[0]?.state, { timeout: 60_000, interval: 100 })
      .toBe('running');
    second.child.kill('SIGKILL');
    await second.exited;
    const third = runCli(batchArgs(file));
    await expect
      .poll(() => third.stderr(), { timeout: 60_000, interval: 100 })
      .toContain('still running from an earlier batch process');
    third.child.kill('SIGINT');
    expect((await third.exited).code, third.stderr()).toBe(130);
    expect(summaryOf('interrupt').jobs[0]).toMatchObject({ state: 'pending' });
    const again = await batch(file);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('job slow: resumes where the batch stopped it');
    expect(summaryOf('interrupt').jobs[0]).toMatchObject({ state: 'passed', starts: 3 });
    // Never two runs for one start (a run stopped before it began its run records none).
    expect(runsOf(join(dirOf, 'jobs/slow'))).toBeLessThanOrEqual(3);
  });

  it('a start whose run never began (the batch and its job killed while the run loads) is run at the next start', async () => {
    const file = batchFile(
      'unborn',
      `name: unborn
defaults: { vars: { EXPECT: no } }
jobs:
  - { id: gate, plan: plan.yaml }
`,
    );
    const dirOf = join(root, 'ribosome-batches/unborn');
    const failed = await batch(file);
    expect(failed.code, failed.stderr).toBe(1);
    expect(summaryOf('unborn').jobs[0]).toMatchObject({ state: 'failed', starts: 1 });
    // Run again with --retry-failed, and killed -9 with its job's whole group as soon as it started.
    const retry = runCli(batchArgs(file, '--retry-failed'));
    await expect
      .poll(() => summaryOf('unborn').jobs[0]?.pid, { timeout: 60_000, interval: 20 })
      .toBeGreaterThan(0);
    const pid = summaryOf('unborn').jobs[0]?.pid ?? 0;
    retry.child.kill('SIGKILL');
    process.kill(-pid, 'SIGKILL');
    await retry.exited;
    // The execution's latest run is the failed one, older than the start the batch recorded: that
    // start is the user's to have, not a failure to keep.
    const next = await batch(file);
    expect(next.stderr).not.toContain('not run again');
    expect(next.stderr).toContain('job gate: started (start 3)');
    expect(next.code, next.stderr).toBe(1);
    expect(summaryOf('unborn').jobs[0]).toMatchObject({ state: 'failed', starts: 3 });
    expect(runsOf(join(dirOf, 'jobs/gate'))).toBeGreaterThanOrEqual(2);
  });

  it('--emit: a workflow at the root of the repository from a subfolder; what a cluster cannot run, refused', async () => {
    const repo = join(root, 'repos/one');
    mkdirSync(join(repo, 'ci'), { recursive: true });
    writeFileSync(join(repo, 'ci/plan.yaml'), PLAN);
    writeFileSync(
      join(repo, 'ci/fleet.yaml'),
      'name: fleet\ndefaults: { plan: plan.yaml }\nmatrix: { workspace: [".."] }\n',
    );
    const gh = await cliToEnd(['batch', join(repo, 'ci/fleet.yaml'), '--emit', 'github-actions']);
    expect(gh.code, gh.stderr).toBe(0);
    const workflow = readFileSync(join(repo, '.github/workflows/ribosome-fleet.yml'), 'utf8');
    expect(workflow).toContain('ribosome batch ci/fleet.yaml --job-index');
    const k8s = await cliToEnd([
      'batch',
      join(repo, 'ci/fleet.yaml'),
      '--emit',
      'kubernetes',
      '--image',
      'i',
      '--secret',
      's',
    ]);
    expect(k8s.code).toBe(2);
    expect(k8s.stderr).toContain('workspace .. is relative to the batch file');
    for (const [flags, words] of [
      [['--emit', 'github-actions', '--image', 'x'], '--image is for --emit kubernetes'],
      [['--emit', 'kubernetes', '--image', 'x', '--secret', 's', '--claim', 'c', '--empty-dir'], 'give one'],
      [
        ['--emit', 'kubernetes', '--image', 'x', '--secret', 's', '--upload', 'cp'],
        '--upload goes with --empty-dir',
      ],
    ] as const) {
      const refused = await cliToEnd(['batch', join(repo, 'ci/fleet.yaml'), ...flags]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(words);
    }
  });
});
