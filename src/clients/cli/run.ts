import { homedir } from 'node:os';
import type { Command } from 'commander';
import { announce } from './run/announce.ts';
import { finishCassette, recordPlaceProblem } from './run/cassette.ts';
import { composeEngine } from './run/compose-engine.ts';
import { exitOnceStopped, refuse, refused } from './run/exit.ts';
import { attachFrontEnd } from './run/front-end.ts';
import { parseRunFlags, type ReplaySettings, type RunFlags } from './run/parse-flags.ts';
import { checkRunDirs, placeExecution } from './run/place-execution.ts';
import { wireProviders } from './run/providers.ts';
import { sandboxPlaceProblems } from './run/sandbox-start.ts';
import { keepServingOnStrayErrors } from './run/stray-errors.ts';
import { summaryLine } from './run/summary-line.ts';

export { EXIT, exitOnceStopped } from './run/exit.ts';
export type { RunFlags } from './run/parse-flags.ts';

/** The options `ribosome run` and `ribosome replay` share. */
export function runOptions(command: Command, help: { execution?: string } = {}): Command {
  return command
    .option('--port <n>', 'WebSocket port (0 or absent = dynamic)')
    .option('--host <h>', 'address to bind (default 127.0.0.1)')
    .option(
      '--execution <dir>',
      help.execution ?? 'execution directory (default ./ribosome-runs/<plan name>)',
    )
    .option('--data <dir>', "user's data directory, read-only for the agent (default <execution>/data)")
    .option(
      '--output <dir>',
      "where codons' outputFiles are copied after they succeed (default <execution>/output)",
    )
    .option('--config <file>', 'config file (YAML or JSON)')
    .option('--headless', 'no terminal UI; print "listening ws://HOST:PORT" once ready')
    .option('--no-autostart', 'idle after each codon instead of starting the next one')
    .option(
      '--allow-origin <origins...>',
      "browser origins allowed to connect besides Ribosome's own dashboards",
    )
    .option('--max-clients <n>', 'WebSocket clients at once; one more gets HTTP 503 (default 64)')
    .option(
      '--proxy',
      'run the LLM proxy on port + 1 (env SERVICE_RUNTIME_WITHOUT_PROXY=false); on by itself when a cost limit is set',
    )
    .option('--no-proxy', 'no LLM proxy, even with a cost limit (which is then checked as spend is reported)')
    .option(
      '--proxy-host <h>',
      'address the LLM proxy binds (default 127.0.0.1, whatever --host is); beyond loopback requests need the access token',
    )
    .option(
      '--provider-base-url <url>',
      'LLM API base URL (over env SERVICE_RUNTIME_PROVIDER_BASE_URL, ANTHROPIC_BASE_URL)',
    )
    .option(
      '--scripted-provider <script>',
      'serve the built-in scripted provider with this script and use it',
    )
    .option(
      '--exit-when-done',
      'stop once the plan has run (exit 0) or a codon failed or was stopped (exit 1); a codon waiting for approval is waited for',
    )
    .option(
      '--approve-all',
      'approve every codon with approval: required at once (for tests and CI; the journal still shows each gate)',
    )
    .option('--model <id>', "the plan's model: every codon without a model of its own uses it")
    .option('--agent <name>', "the plan's agent: every codon without an agent of its own uses it")
    .option(
      '--var <NAME=VALUE...>',
      "an environment variable of every codon (its agent and gates), over the plan's defaults.env; repeatable",
    )
    .option('--fresh', 'start a new execution directory instead of resuming the one the plan already has')
    .option('--max-cost <usd>', "the run's budget in US dollars, agents and sentinels together (e.g. 2.50)")
    .option(
      '--max-time <duration>',
      "the run's wall-clock budget from the server's start: 90s, 30m, 2h or ms",
    )
    .option(
      '--workspace <path[@ref]>',
      "a fresh execution's agent root starts as a clone of this git repository at ref (default HEAD)",
    )
    .option('--web', 'serve the web dashboard over HTTP on port + 2 (or --web-port) and print its address')
    .option('--web-port <n>', "the dashboard's port (0 = dynamic; default the WebSocket port + 2)")
    .option(
      '--token <token>',
      'access token every WebSocket upgrade and the dashboard need (env RIBOSOME_TOKEN); generated when --host is not loopback',
    )
    .option(
      '--sandbox <mode>',
      "confine every agent: auto (default: where this machine can), on (or refuse to start) or off; over the plan's",
    )
    .option('--no-sandbox', 'agents run unconfined, with your rights (--sandbox off)');
}

export function registerRun(program: Command): void {
  runOptions(
    program
      .command('run')
      .description('Run a plan and serve the control protocol over WebSocket')
      .argument('<plan-file>', 'plan file (YAML or JSON)'),
  )
    .option(
      '--record',
      "keep every LLM exchange of the run's agents and sentinels in <execution>/cassette.jsonl, for `ribosome replay` (turns the proxy on)",
    )
    .option(
      '--shared-limits <dir>',
      'share usage limits with the other runs given this directory: a limit one meets holds the others on the same credential until it resets (made when missing; a batch gives its jobs <batch-dir>/usage-limits)',
    )
    .action(async (planFile: string, flags: RunFlags) => {
      exitOnceStopped(await run(planFile, flags));
    });
}

/**
 * `ribosome run`: checks the flags, the plan and the config file; places the execution; wires the
 * plan's providers; starts the server with its engine and companions; then shows the run until the
 * server stops. Each step refuses with the exit code for its problem, before anything starts.
 */
export async function run(planFile: string, flags: RunFlags, replay?: ReplaySettings): Promise<number> {
  const startedAt = new Date();
  const request = await parseRunFlags(planFile, flags, (text) => process.stderr.write(`${text}\n`), replay);
  if (!request.ok) return refused(request);
  const placement = await placeExecution(request.value);
  if (!placement.ok) return refused(placement);
  const unrecorded = recordPlaceProblem(request.value, placement.value.executionDir);
  if (unrecorded) return refused(refuse(unrecorded));
  const providers = wireProviders(request.value);
  if (!providers.ok) return refused(providers);
  const execution = await checkRunDirs(request.value, placement.value);
  if (!execution.ok) return refused(execution);
  const place = { home: homedir(), executionDir: execution.value.executionDir };
  const misplaced = sandboxPlaceProblems(request.value.plan, request.value.sandbox, place);
  if (misplaced) return refused(misplaced);
  const started = await composeEngine(request.value, execution.value, providers.value);
  if (!started.ok) return refused(started);

  const { runtime } = started;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void runtime.stop(`received ${signal}`));
  }
  keepServingOnStrayErrors(runtime);
  const notes = announce(runtime, request.value, execution.value);
  const code = await attachFrontEnd(
    runtime,
    request.value,
    (code, reason) => summaryLine(execution.value.executionDir, request.value.plan, startedAt, code, reason),
    notes,
  );
  return await finishCassette(request.value, execution.value.executionDir, code);
}
