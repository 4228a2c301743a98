import { relative } from 'node:path';
import type { ReadyInfo } from '../../../engine/engine.ts';
import type { Runtime } from '../../../host/server/runtime.ts';
import { dashboardAddress } from '../../../host/web-server/index.ts';
import type { RunCompanions } from './companions.ts';
import type { RunRequest } from './parse-flags.ts';
import type { Execution } from './place-execution.ts';

/** What a start said before the terminal UI took the screen: the UI shows it again (front-end.ts). */
export type StartNotes = {
  /** The dashboard's address as printed (`--web`), its key included when it has one. */
  dashboard?: string;
  /** The other lines said on stderr, without their `ribosome: `. */
  lines: string[];
};

/**
 * Says what this start is, once the server listens: on stderr what it resumes (or that it starts
 * afresh), a generated token, a proxy beyond loopback; on stdout `listening <url>`, last. Returns
 * what it said (and the dashboard's address), for a terminal UI whose screen hides them.
 */
export function announce(
  runtime: Runtime<RunCompanions>,
  request: RunRequest,
  execution: Execution,
): StartNotes {
  const lines: string[] = [];
  const say = (line: string) => {
    process.stderr.write(`ribosome: ${line}\n`);
    lines.push(line);
  };
  const { executionDir } = execution;
  const resumed = runtime.engine.readyInfo?.().resumed;
  if (resumed) say(resumeNotice(relative(process.cwd(), executionDir) || '.', resumed));
  else if (execution.fresh) say(`starting afresh in ${executionDir}`);
  // Shown once; with --web the dashboard's address carries it instead.
  const { access } = request;
  if (access.generated && !request.web) {
    say(`access token (clients send Authorization: Bearer <token>): ${access.token}`);
  }
  const late = lateReporters(request);
  if (request.proxy.enabledFor === 'budget') {
    say(
      'the LLM proxy is on to hold the cost limit: each model request is priced before it is sent (--no-proxy turns it off)',
    );
  } else if (request.proxy.offWithBudget && late.length > 0) {
    say(
      `without the LLM proxy the cost limit is checked as spend is reported: ${late.join(' and ')} ${late.length === 1 ? 'reports' : 'report'} a turn's spend at its end, so one turn may pass it by any amount (--proxy holds it before each request)`,
    );
  }
  const proxy = runtime.companions?.proxy;
  if (proxy && proxy.agentUrl !== proxy.url) {
    say(
      `the LLM proxy listens beyond loopback (${proxy.url}): clients need the access token, as the base URL <proxy>/t/<token> or the header x-ribosome-token`,
    );
  }
  process.stdout.write(`listening ${runtime.url}\n`);
  const web = runtime.companions?.dashboard;
  return { lines, ...(web ? { dashboard: dashboardAddress(web.url, access.token) } : {}) };
}

/** The plan's agents that report a turn's spend only at its end (docs/unattended.md#budgets). Pure. */
function lateReporters(request: RunRequest): string[] {
  const late = new Set(['codex', 'gemini']);
  return [...new Set(request.plan.codons.map((c) => c.agent))].filter((a) => late.has(a));
}

/** The line a re-run prints (after `ribosome: `): what it resumes and what comes next. */
export function resumeNotice(dir: string, resumed: NonNullable<ReadyInfo['resumed']>): string {
  const how =
    resumed.previousRunStatus === 'completed'
      ? ''
      : ` (the previous run ${resumed.previousRunStatus === 'crashed' ? 'crashed' : 'ended with a codon failed or stopped'}${resumed.recovered ? '; back to its last clean checkpoint' : ''})`;
  const next = resumed.approvalWaitCodonId
    ? `codon ${resumed.approvalWaitCodonId} waits for approval`
    : resumed.nextCodonId
      ? `next: ${resumed.nextCodonId}`
      : 'every codon is done, nothing left to run';
  return `resuming ${dir}: run ${resumed.runCount}${how}, ${resumed.done} of ${resumed.total} codons done, ${next} (--fresh starts anew)`;
}
