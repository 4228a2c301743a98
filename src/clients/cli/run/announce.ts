import { relative } from 'node:path';
import type { ReadyInfo } from '../../../engine/engine.ts';
import type { Runtime } from '../../../host/server/runtime.ts';
import type { RunCompanions } from './companions.ts';
import type { RunRequest } from './parse-flags.ts';
import type { Execution } from './place-execution.ts';

/**
 * Says what this start is, once the server listens: on stderr what it resumes (or that it starts
 * afresh), a generated token, a proxy beyond loopback; on stdout `listening <url>`, last.
 */
export function announce(runtime: Runtime<RunCompanions>, request: RunRequest, execution: Execution): void {
  const { executionDir } = execution;
  const resumed = runtime.engine.readyInfo?.().resumed;
  if (resumed)
    process.stderr.write(`${resumeNotice(relative(process.cwd(), executionDir) || '.', resumed)}\n`);
  else if (execution.fresh) process.stderr.write(`ribosome: starting afresh in ${executionDir}\n`);
  // Shown once; with --web the dashboard's address carries it instead.
  const { access } = request;
  if (access.generated && !request.web) {
    process.stderr.write(
      `ribosome: access token (clients send Authorization: Bearer <token>): ${access.token}\n`,
    );
  }
  const proxy = runtime.companions?.proxy;
  if (proxy && proxy.agentUrl !== proxy.url) {
    process.stderr.write(
      `ribosome: the LLM proxy listens beyond loopback (${proxy.url}): clients need the access token, as the base URL <proxy>/t/<token> or the header x-ribosome-token\n`,
    );
  }
  process.stdout.write(`listening ${runtime.url}\n`);
}

/** The line a re-run prints: what it resumes and what comes next. */
export function resumeNotice(dir: string, resumed: NonNullable<ReadyInfo['resumed']>): string {
  const how =
    resumed.previousRunStatus === 'completed'
      ? ''
      : ` (the previous run ${resumed.previousRunStatus === 'crashed' ? 'crashed' : 'ended with a codon failed or stopped'}${resumed.recovered ? '; back to its last clean checkpoint' : ''})`;
  const next = resumed.nextCodonId
    ? `next: ${resumed.nextCodonId}`
    : 'every codon is done, nothing left to run';
  return `ribosome: resuming ${dir}: run ${resumed.runCount}${how}, ${resumed.done} of ${resumed.total} codons done, ${next} (--fresh starts anew)`;
}
