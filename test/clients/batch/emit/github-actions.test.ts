// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the expected workflow text holds GitHub expressions, ${{ ... }}
import { posix } from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  type GithubActionsInput,
  githubWorkflow,
} from '../../../../src/clients/batch/emit/github-actions.ts';
import { emitBatch } from '../../../../src/clients/batch/emit/index.ts';
import { GithubActionsOptions } from '../../../../src/clients/batch/emit/options.ts';
import { expandBatch } from '../../../../src/clients/batch/expand.ts';
import { SERVER_VERSION } from '../../../../src/core/version.ts';
import { BatchFile } from '../../../../src/plan/batch-schema.ts';

/**
 * `--emit github-actions`: the workflow is checked against GitHub's workflow schema as SchemaStore
 * publishes it (github-workflow.json, which @action-validator/core validates with; the same validator
 * rejects broken workflows below), and read as GitHub reads it: its matrix, steps and final export.
 */

type Step = {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
};
type WorkflowJob = {
  name?: string;
  needs?: string;
  if?: string;
  'runs-on': string;
  permissions?: Record<string, string>;
  strategy?: {
    'fail-fast': boolean;
    'max-parallel': number;
    matrix: { include: { index: number; id: string }[] };
  };
  steps: Step[];
};
type Workflow = {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: { run: WorkflowJob; export: WorkflowJob };
};

/** The schema's verdict: no error, or the errors as text. */
function schemaErrors(text: string): string {
  const result = validateWorkflow(text);
  return result.errors.length === 0 ? '' : JSON.stringify(result.errors);
}

function workflowOf(text: string): Workflow {
  expect(schemaErrors(text)).toBe('');
  return parse(text) as Workflow;
}

const MATRIX = `name: fleet
defaults:
  plan: plans/fix.yaml
  workspace: .
matrix:
  model: [m1, m2, m3]
`;

function input(text = MATRIX, options: Partial<GithubActionsOptions> = {}, parallel = 2): GithubActionsInput {
  const batch = BatchFile.parse(parse(text));
  const expanded = expandBatch(batch, '/repo/batches');
  if (!expanded.ok) throw new Error(JSON.stringify(expanded.problems));
  return {
    ...GithubActionsOptions.parse({ batchPath: 'batches/fleet.yaml', ...options }),
    batch,
    jobs: expanded.jobs,
    parallel,
  };
}

const stepRunning = (job: WorkflowJob, words: string) => job.steps.find((s) => s.run?.includes(words));

describe('ribosome batch --emit github-actions', () => {
  it("is a valid workflow for GitHub's schema, started by hand, reading the repository only where it need not write", () => {
    const workflow = workflowOf(githubWorkflow(input()));
    expect(Object.keys(workflow.on)).toEqual(['workflow_dispatch']);
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs.export.permissions).toEqual({ contents: 'write' });
  });

  it('has one matrix entry per job, by index and id, as many at once as --parallel, fail-fast as the batch', () => {
    const { run } = workflowOf(githubWorkflow(input(MATRIX, {}, 2))).jobs;
    const jobs = input().jobs;
    expect(run.strategy?.matrix.include).toEqual(jobs.map((j) => ({ index: j.index, id: j.id })));
    expect(run.strategy?.['max-parallel']).toBe(2);
    expect(run.strategy?.['fail-fast']).toBe(false);
    expect(run.name).toBe('${{ matrix.id }}');
    const fast = workflowOf(githubWorkflow(input(`${MATRIX}failFast: true\n`))).jobs.run;
    expect(fast.strategy?.['fail-fast']).toBe(true);
  });

  it("each entry sets up Node 24 and Ribosome, then runs its job with the provider keys from the repository's secrets", () => {
    const options = {
      secrets: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'],
      agentClis: ['@openai/codex@0.171.0'],
    };
    const { run } = workflowOf(githubWorkflow(input(MATRIX, options))).jobs;
    expect(run.steps.map((s) => s.uses).filter(Boolean)).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'actions/upload-artifact@v4',
    ]);
    expect(run.steps.find((s) => s.uses === 'actions/setup-node@v4')?.with).toEqual({ 'node-version': 24 });
    expect(stepRunning(run, 'npm install -g')?.run).toBe(
      `npm install -g ribosome@${SERVER_VERSION} @openai/codex@0.171.0`,
    );
    const job = stepRunning(run, '--job-index');
    expect(job?.run).toBe(
      'ribosome batch batches/fleet.yaml --job-index ${{ matrix.index }} --dir ribosome-batches/fleet',
    );
    expect(job?.env).toEqual({
      ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}',
      OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}',
    });
  });

  it("uploads each job's batch directory, its execution's hidden history included, whether the job passed or not", () => {
    const { run } = workflowOf(githubWorkflow(input())).jobs;
    const upload = run.steps.find((s) => s.uses === 'actions/upload-artifact@v4');
    expect(upload?.if).toBe('${{ !cancelled() }}');
    expect(upload?.with).toMatchObject({
      name: 'ribosome-fleet-${{ matrix.index }}',
      path: 'ribosome-batches/fleet',
      'include-hidden-files': true,
    });
  });

  it('a last job downloads every upload and exports the jobs that passed to branches, then pushes them', () => {
    const workflow = workflowOf(githubWorkflow(input(MATRIX, { branchPrefix: 'agents/try-' })));
    const last = workflow.jobs.export;
    expect(last.needs).toBe('run');
    expect(last.if).toBe('${{ !cancelled() }}');
    const download = last.steps.find((s) => s.uses === 'actions/download-artifact@v4');
    expect(download?.with).toEqual({ pattern: 'ribosome-fleet-*', path: 'ribosome-artifacts' });
    expect(stepRunning(last, 'batch export')?.run).toContain(
      'ribosome batch export --dir "$dir" --to-branch agents/try-',
    );
    expect(stepRunning(last, 'git push')?.run).toContain("'refs/heads/agents/try-*'");
  });

  it("with Ribosome a devDependency of the repository, installs it with npm ci and runs the repository's own", () => {
    const { run, export: last } = workflowOf(
      githubWorkflow(input(MATRIX, { ribosome: { kind: 'devDependency' } })),
    ).jobs;
    expect(stepRunning(run, 'npm ci')?.run).toBe('npm ci');
    expect(stepRunning(run, '--job-index')?.run).toMatch(/^npx --no-install ribosome batch /);
    expect(stepRunning(last, 'batch export')?.run).toContain('npx --no-install ribosome batch export');
  });

  it('quotes a batch path the shell would split, and names the branch prefix after the batch by default', () => {
    const text = githubWorkflow(input(MATRIX, { batchPath: 'my batches/fleet.yaml' }));
    const { run, export: last } = workflowOf(text).jobs;
    expect(stepRunning(run, '--job-index')?.run).toContain(
      "ribosome batch 'my batches/fleet.yaml' --job-index",
    );
    expect(stepRunning(last, 'batch export')?.run).toContain('--to-branch ribosome/fleet/');
  });

  it('refuses, with a code, more jobs than one GitHub matrix runs', () => {
    const many = `name: many\ndefaults:\n  plan: p.yaml\nmatrix:\n  model: [a, b]\n  repeat: 129\n`;
    expect(input(many).jobs).toHaveLength(258);
    const result = emitBatch('github-actions', input(many));
    expect(result).toMatchObject({ ok: false, error: { code: 'EMIT_TOO_MANY_JOBS' } });
    expect(emitBatch('github-actions', input())).toMatchObject({
      ok: true,
      path: '.github/workflows/ribosome-fleet.yml',
    });
  });

  it('the schema rejects broken workflows: a job that says where it runs nowhere, a step that does nothing', () => {
    const workflow = parse(githubWorkflow(input())) as Workflow;
    const nowhere = structuredClone(workflow);
    delete (nowhere.jobs.run as Partial<WorkflowJob>)['runs-on'];
    expect(schemaErrors(stringify(nowhere))).toContain('runs-on');
    const idle = structuredClone(workflow);
    idle.jobs.export.steps.push({ name: 'nothing' });
    expect(schemaErrors(stringify(idle))).not.toBe('');
    expect(schemaErrors(stringify(workflow))).toBe('');
  });
});

// The path the workflow runs the batch from is the repository's: never absolute, never outside it.
describe('GithubActionsOptions', () => {
  it('refuses a batch path outside the repository and a secret name GitHub reserves', () => {
    expect(GithubActionsOptions.safeParse({ batchPath: '/abs/b.yaml' }).success).toBe(false);
    expect(GithubActionsOptions.safeParse({ batchPath: posix.join('..', 'b.yaml') }).success).toBe(false);
    expect(GithubActionsOptions.safeParse({ batchPath: 'b.yaml', secrets: ['GITHUB_TOKEN'] }).success).toBe(
      false,
    );
    expect(GithubActionsOptions.parse({ batchPath: 'b.yaml' })).toMatchObject({
      secrets: ['ANTHROPIC_API_KEY'],
      ribosome: { kind: 'global', spec: `ribosome@${SERVER_VERSION}` },
      runsOn: 'ubuntu-latest',
    });
  });
});
