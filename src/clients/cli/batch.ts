/**
 * `ribosome batch FILE`: many runs of plans at once (docs/batches.md); `batch export` and
 * `batch report` read a batch directory.
 */
import type { Command } from 'commander';
import { type BatchFlags, batchCommand } from '../batch/command/batch-command.ts';
import { batchExport, type ExportFlags } from '../batch/command/batch-export.ts';
import { batchReport } from '../batch/command/batch-report.ts';

export function registerBatch(program: Command): void {
  const batch = program
    .command('batch')
    .description('Run many plans at once: jobs listed or made by a matrix of workspaces, agents and models')
    .addHelpText(
      'after',
      '\n`ribosome batch FILE` is `ribosome batch run FILE`: `ribosome batch run --help` lists its options (docs/batches.md).',
    );
  batch
    .command('run', { isDefault: true })
    .description('Run a batch file (the default: `ribosome batch FILE`)')
    .argument('<batch-file>', 'batch file (YAML or JSON)')
    .option('--dir <dir>', 'batch directory (default ./ribosome-batches/<name>)')
    .option('--parallel <n>', "jobs at once (over the file's; default: what this machine can hold)")
    .option('--fail-fast', 'stop the batch at the first job that fails')
    .option(
      '--retry-failed',
      'run the jobs that failed again, each from its last clean checkpoint (skipped and infrastructure-failed jobs always run again)',
    )
    .option('--max-cost <usd>', "the batch's budget over all its jobs, in US dollars (over the file's)")
    .option('--headless', 'no live table: one line per job change on stderr')
    .option('--web', "serve the dashboard's fleet view of the batch and print its address")
    .option('--web-port <n>', "the dashboard's port (default dynamic)")
    .option(
      '--job-index <i>',
      'run only the job at this 0-based index (a pod or CI matrix entry), no summary',
    )
    .option('--host <h>', "address every job's server binds (default 127.0.0.1)")
    .option('--port <n>', "with --job-index: the job server's port (default dynamic)")
    .option('--config <file>', "config file every job's run reads")
    .option(
      '--scripted-provider <script>',
      'every job runs offline on the built-in scripted provider with this script',
    )
    .option('--provider-base-url <url>', 'LLM API base URL of every job')
    .option('--sandbox <mode>', 'confine every agent: auto, on or off')
    .option('--no-sandbox', 'agents run unconfined (--sandbox off)')
    .option(
      '--emit <kind>',
      'write what runs the batch past this machine instead of running it: kubernetes or github-actions',
    )
    .option('--out <dir>', '--emit: the folder to write into (default the current one)')
    .option('--image <ref>', '--emit kubernetes: the Ribosome image the cluster pulls (required)')
    .option(
      '--secret <name>',
      '--emit kubernetes: the Secret holding provider keys and RIBOSOME_TOKEN (required)',
    )
    .option('--claim <name>', '--emit kubernetes: an existing ReadWriteMany claim for the batch directory')
    .option(
      '--empty-dir',
      "--emit kubernetes: each pod keeps its job's results on an emptyDir (with --upload)",
    )
    .option(
      '--upload <command>',
      '--emit kubernetes --empty-dir: run in the pod after its job (RESULTS_DIR set)',
    )
    .option('--cpu <quantity>', "--emit kubernetes: each pod's CPU request and limit (default 1)")
    .option('--memory <quantity>', "--emit kubernetes: each pod's memory request and limit (default 2Gi)")
    .option('--namespace <name>', '--emit kubernetes: the namespace of every object')
    .option('--pod-port <n>', "--emit kubernetes: each pod's protocol port (default 7777)")
    .option(
      '--secrets <names>',
      '--emit github-actions: repository secrets each job gets (default ANTHROPIC_API_KEY)',
    )
    .option(
      '--agent-clis <packages>',
      '--emit github-actions: npm packages of agent CLIs to install, comma-separated',
    )
    .option(
      '--branch-prefix <prefix>',
      '--emit github-actions: successful jobs go to branches PREFIX<job id>',
    )
    .option(
      '--ribosome-dev',
      "--emit github-actions: use the repository's own ribosome devDependency (npm ci)",
    )
    .action(async (file: string, flags: BatchFlags) => {
      process.exitCode = await batchCommand(file, flags);
    });
  batch
    .command('export')
    .description("Export every job that passed into its workspace's repository, one branch per job")
    .argument('[batch-file]', 'the batch file (its default batch directory); or give --dir')
    .option('--dir <dir>', 'batch directory')
    .requiredOption('--to-branch <prefix>', 'each job goes to branch <prefix><job id>')
    .option('--force', 'replace branches that exist')
    .action(async (file: string | undefined, flags: ExportFlags) => {
      process.exitCode = await batchExport(file, flags);
    });
  batch
    .command('report')
    .description(
      'Write summary.json, summary.md, junit.xml and the comparison report from the jobs run so far',
    )
    .argument('[batch-file]', 'the batch file (its default batch directory); or give --dir')
    .option('--dir <dir>', 'batch directory')
    .action(async (file: string | undefined, flags: { dir?: string }) => {
      process.exitCode = await batchReport(file, flags);
    });
}
