import { stringify } from 'yaml';
import type { BatchFile, Job } from '../../../plan/batch-schema.ts';
import { EmitError } from './emit-error.ts';
import type { GithubActionsOptions } from './options.ts';

/**
 * `ribosome batch --emit github-actions` (docs/batches.md#github-actions): a workflow, started by hand,
 * whose matrix has one entry per job (its index and id); each runs `ribosome batch FILE --job-index I`
 * on a runner of its own and uploads its batch directory, and a last job downloads them all and
 * exports the jobs that passed to branches, then pushes them. Pure: the workflow's YAML.
 */

export type GithubActionsInput = GithubActionsOptions & {
  batch: BatchFile;
  jobs: readonly Job[];
  /** Jobs at once: the matrix's max-parallel. */
  parallel: number;
};

/** GitHub runs at most this many jobs from one matrix. */
export const MATRIX_LIMIT = 256;

const CHECKOUT = 'actions/checkout@v4';
const SETUP_NODE = 'actions/setup-node@v4';
const UPLOAD = 'actions/upload-artifact@v4';
const DOWNLOAD = 'actions/download-artifact@v4';

export function githubWorkflow(input: GithubActionsInput): string {
  if (input.jobs.length > MATRIX_LIMIT)
    throw new EmitError(
      'EMIT_TOO_MANY_JOBS',
      `The batch has ${input.jobs.length} jobs; a GitHub Actions matrix runs at most ${MATRIX_LIMIT}. Split the batch, or run it on Kubernetes (--emit kubernetes).`,
    );
  const name = input.batch.name;
  const dir = `ribosome-batches/${name}`;
  const artifact = `ribosome-${name}`;
  const prefix = input.branchPrefix ?? `ribosome/${name}/`;
  const ribosome = input.ribosome.kind === 'devDependency' ? 'npx --no-install ribosome' : 'ribosome';
  const workflow = {
    name: `Ribosome batch ${name}`,
    on: { workflow_dispatch: {} },
    // One run of the batch at a time: two would export to the same branches.
    concurrency: { group: `ribosome-batch-${name}`, 'cancel-in-progress': false },
    permissions: { contents: 'read' },
    jobs: {
      run: {
        name: gh('matrix.id'),
        'runs-on': input.runsOn,
        strategy: {
          'fail-fast': input.batch.failFast ?? false,
          'max-parallel': Math.max(1, input.parallel),
          matrix: { include: input.jobs.map((job) => ({ index: job.index, id: job.id })) },
        },
        steps: [
          ...setup(input),
          {
            name: 'The sandbox (bubblewrap, socat; user namespaces, which Ubuntu restricts)',
            run: [
              'sudo apt-get update -qq && sudo apt-get install -y -qq bubblewrap socat',
              'if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then',
              '  sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
              'fi',
            ].join('\n'),
          },
          {
            name: `Run job ${gh('matrix.index')} (${gh('matrix.id')})`,
            run: `${ribosome} batch ${quote(input.batchPath)} --job-index ${gh('matrix.index')} --dir ${quote(dir)}`,
            env: Object.fromEntries(input.secrets.map((secret) => [secret, gh(`secrets.${secret}`)])),
          },
          {
            name: 'Upload its batch directory (summary, execution, log)',
            if: gh('!cancelled()'),
            uses: UPLOAD,
            with: {
              name: `${artifact}-${gh('matrix.index')}`,
              path: dir,
              // The execution's journal and checkpoints live in its .ribosome folder: the export reads them.
              'include-hidden-files': true,
              'if-no-files-found': 'warn',
            },
          },
        ],
      },
      export: {
        name: 'Export the jobs that passed to branches',
        needs: 'run',
        // The jobs that passed are exported even when others failed.
        if: gh('!cancelled()'),
        'runs-on': input.runsOn,
        permissions: { contents: 'write' },
        steps: [
          ...setup({ ...input, agentClis: [] }),
          {
            uses: DOWNLOAD,
            with: { pattern: `${artifact}-*`, path: 'ribosome-artifacts' },
          },
          {
            name: 'Export',
            run: [
              'git config user.name "github-actions[bot]"',
              'git config user.email "41898282+github-actions[bot]@users.noreply.github.com"',
              'for dir in ribosome-artifacts/*/; do',
              `  ${ribosome} batch export --dir "$dir" --to-branch ${quote(prefix)}`,
              'done',
            ].join('\n'),
          },
          {
            name: 'Push the branches',
            run: [
              `branches=$(git for-each-ref --format='%(refname)' ${quote(`refs/heads/${prefix}*`)})`,
              'if [ -n "$branches" ]; then git push origin $branches; else echo "No job passed: no branch to push."; fi',
            ].join('\n'),
          },
        ],
      },
    },
  };
  return `${header(input, prefix)}${stringify(workflow, { lineWidth: 0 })}`;
}

/** Checkout (with history: a workspace may name a ref), Node 24, Ribosome and the agent CLIs. */
function setup(input: GithubActionsInput) {
  const installs =
    input.ribosome.kind === 'devDependency'
      ? ['npm ci', ...(input.agentClis.length > 0 ? [`npm install -g ${input.agentClis.join(' ')}`] : [])]
      : [`npm install -g ${[input.ribosome.spec, ...input.agentClis].join(' ')}`];
  return [
    { uses: CHECKOUT, with: { 'fetch-depth': 0 } },
    { uses: SETUP_NODE, with: { 'node-version': 24 } },
    { name: 'Install Ribosome', run: installs.join('\n') },
  ];
}

/** A GitHub Actions expression, as the workflow writes it. */
const gh = (expression: string) => `\${{ ${expression} }}`;

/** A word for the shell: as it is when it holds nothing the shell reads, else in single quotes. */
function quote(word: string): string {
  return /^[A-Za-z0-9._/@:=+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function header(input: GithubActionsInput, prefix: string): string {
  return [
    `Ribosome batch "${input.batch.name}": ${input.jobs.length} job(s), ${Math.min(input.parallel, input.jobs.length)} at once; started by hand (Actions > Run workflow).`,
    'Made by `ribosome batch --emit github-actions` (docs/batches.md#github-actions): save it under .github/workflows/.',
    `Repository secrets it reads: ${input.secrets.join(', ') || 'none'}. Jobs that pass are pushed to branches ${prefix}<job id>.`,
  ]
    .map((line) => `# ${line}\n`)
    .join('');
}
