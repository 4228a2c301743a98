import { parseCost } from '../../../engine/budgets/limits.ts';
import { displayLine } from '../../model/display-text.ts';
import { formatCost } from '../../model/format.ts';
import { type BatchDashboard, BatchDashboardError, startBatchDashboard } from '../fleet/batch-dashboard.ts';
import { batchProblemsText, loadBatch } from '../run/load-batch.ts';
import { startBatchRun } from '../run/run-batch.ts';
import type { BatchSummary } from '../summary-schema.ts';
import { loadBatchView } from '../view/load.ts';
import { type EmitFlags, emitCommand } from './batch-emit.ts';

/** `ribosome batch FILE`'s options as commander gives them. */
export type BatchFlags = EmitFlags & {
  dir?: string;
  parallel?: string;
  failFast?: boolean;
  retryFailed?: boolean;
  maxCost?: string;
  headless?: boolean;
  web?: boolean;
  webPort?: string;
  jobIndex?: string;
  host?: string;
  port?: string;
  config?: string;
  scriptedProvider?: string;
  providerBaseUrl?: string;
  sandbox?: string | boolean;
};

const fail = (message: string, code = 2) => {
  process.stderr.write(`ribosome batch: ${message}\n`);
  return code;
};

const wholeNumber = (text: string | undefined, min: number, max: number) => {
  if (text === undefined) return undefined;
  const n = Number(text);
  return /^\d+$/.test(text.trim()) && n >= min && n <= max ? n : Number.NaN;
};

/** Runs a batch to its end; the exit code (0 every job passed, 1 some did not, 2 bad input, 3 locked). */
export async function batchCommand(file: string, flags: BatchFlags): Promise<number> {
  const parallel = wholeNumber(flags.parallel, 1, 1_000);
  if (Number.isNaN(parallel))
    return fail(`--parallel must be a whole number from 1 to 1000, got "${flags.parallel}"`);
  const jobIndex = wholeNumber(flags.jobIndex, 0, 1_000_000);
  if (Number.isNaN(jobIndex))
    return fail(`--job-index must be a whole number from 0, got "${flags.jobIndex}"`);
  const port = wholeNumber(flags.port, 0, 65_535);
  if (Number.isNaN(port)) return fail(`--port must be an integer from 0 to 65535, got "${flags.port}"`);
  if (port !== undefined && port !== 0 && jobIndex === undefined) {
    return fail(
      '--port is for one job (--job-index): the jobs of a batch on one machine each take a dynamic port',
    );
  }
  if (typeof flags.sandbox === 'string' && !['auto', 'on', 'off'].includes(flags.sandbox)) {
    return fail(`--sandbox must be auto, on or off, got "${flags.sandbox}"`);
  }
  if (flags.webPort !== undefined && !flags.web) return fail('--web-port goes with --web');
  const webPort = wholeNumber(flags.webPort, 0, 65_535);
  if (Number.isNaN(webPort))
    return fail(`--web-port must be an integer from 0 to 65535, got "${flags.webPort}"`);
  const maxCost = flags.maxCost === undefined ? undefined : parseCost(flags.maxCost);
  if (flags.maxCost !== undefined && maxCost === undefined) {
    return fail(`--max-cost must be a positive number of US dollars, e.g. 2.50, got "${flags.maxCost}"`);
  }
  const loaded = await loadBatch(file, jobIndex === undefined ? undefined : { jobIndex });
  if (!loaded.ok) return fail(`the batch cannot run:\n${batchProblemsText(loaded.problems, file)}`);
  if (loaded.warnings.length > 0) process.stderr.write(`${batchProblemsText(loaded.warnings, file)}\n`);
  if (flags.emit !== undefined) return emitCommand(loaded.value, flags, parallel);
  const say = (text: string) => process.stderr.write(`ribosome batch: ${displayLine(text)}\n`);
  // On a terminal the live table shows what the lines would say; they are kept for after it.
  const table =
    flags.headless !== true && jobIndex === undefined && process.stdin.isTTY && process.stdout.isTTY;
  const kept: string[] = [];
  const line = table ? (text: string) => void kept.push(text) : say;
  let viewer: { next(summary: BatchSummary): void; end(): void } | undefined;
  // Before the batch starts: from its first line on (a job started, one followed), a signal must stop
  // the jobs to be resumed, never kill this process with the default action. The handler runs once
  // this synchronous start is over, when the runner exists.
  let stopping: (() => void) | undefined;
  const onSignal = (signal: string) => {
    line(`received ${signal}`);
    stopping?.();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const started = startBatchRun({
    loaded: loaded.value,
    ...(flags.dir === undefined ? {} : { dir: flags.dir }),
    ...(parallel === undefined ? {} : { parallel }),
    ...(flags.failFast ? { failFast: true } : {}),
    ...(flags.retryFailed ? { retryFailed: true } : {}),
    ...(maxCost === undefined ? {} : { maxCostUsd: maxCost }),
    ...(jobIndex === undefined ? {} : { jobIndex }),
    settings: {
      ...(flags.host === undefined ? {} : { host: flags.host }),
      ...(port === undefined ? {} : { port }),
      ...(flags.config === undefined ? {} : { config: flags.config }),
      ...(flags.scriptedProvider === undefined ? {} : { scriptedProvider: flags.scriptedProvider }),
      ...(flags.providerBaseUrl === undefined ? {} : { providerBaseUrl: flags.providerBaseUrl }),
      ...(flags.sandbox === undefined ? {} : { sandbox: flags.sandbox }),
    },
    onLine: line,
    onSummary: (summary) => viewer?.next(summary),
  });
  let dashboard: Awaited<ReturnType<typeof openDashboard>> | undefined;
  try {
    if (!started.ok) return fail(started.message, started.code);
    const { runner, layout } = started;
    stopping = () => runner.stop();
    dashboard = flags.web ? await openDashboard(layout.dir, flags) : undefined;
    if (dashboard && !dashboard.ok) {
      runner.stop();
      await started.finish();
      return fail(dashboard.message, 1);
    }
    if (dashboard?.ok) process.stdout.write(`dashboard ${dashboard.value.url}\n`);
    const view = table
      ? (await loadBatchView()).runBatchView({
          summaries: (listener) => {
            viewer = listener;
            listener.next(runner.summary());
            return () => {
              viewer = undefined;
            };
          },
          onQuit: () => runner.stop(),
        })
      : undefined;
    const { summary, code } = await started.finish();
    viewer?.end();
    await view;
    // What the table showed, for the scrollback: how each job ended.
    for (const text of kept) if (!/: started( \(start \d+\))?$/.test(text)) say(text);
    say(endLine(summary, jobIndex === undefined ? layout.summary : undefined));
    return code;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (dashboard?.ok) await dashboard.value.stop();
  }
}

/** --web: the dashboard's fleet view of this batch, on loopback unless --host says otherwise. */
async function openDashboard(
  dir: string,
  flags: BatchFlags,
): Promise<{ ok: true; value: BatchDashboard } | { ok: false; message: string }> {
  const port = flags.webPort === undefined ? 0 : Number(flags.webPort);
  try {
    const value = await startBatchDashboard({
      dir,
      host: flags.host ?? '127.0.0.1',
      port,
      token: process.env.RIBOSOME_TOKEN || undefined,
      readonly: false,
    });
    return { ok: true, value };
  } catch (error) {
    if (error instanceof BatchDashboardError) return { ok: false, message: error.message };
    throw error;
  }
}

/** `upgrade: 4 jobs: 3 passed, 1 failed; $0.0123; summary ribosome-batches/upgrade/summary.json`. */
export function endLine(
  summary: BatchSummary,
  summaryFile: string | undefined,
  from: 'run' | 'report' = 'run',
): string {
  const counts = Object.entries(summary.counts)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`);
  const parts = [
    `${summary.jobs.length} job${summary.jobs.length === 1 ? '' : 's'}: ${counts.join(', ')}`,
    formatCost(summary.spentUsd),
  ];
  if (summary.state === 'stopped') {
    parts.push(
      from === 'run'
        ? 'stopped (run the same command again to resume)'
        : 'some jobs have not run to their end',
    );
  }
  if (summaryFile) parts.push(`summary ${summaryFile}`);
  return `${summary.name}: ${parts.join('; ')}`;
}
