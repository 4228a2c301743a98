import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Command } from 'commander';
import { missingPlanClis } from '../../agents/agent-clis.ts';
import { parseCost, parseDuration, runBudget } from '../../engine/budgets/limits.ts';
import { createOrchestrator } from '../../engine/create-orchestrator.ts';
import type { Engine, ReadyInfo } from '../../engine/engine.ts';
import { journalRedos } from '../../engine/sentinels/actions/take-actions.ts';
import { createSentinelHooks } from '../../engine/sentinels/sentinel-hooks.ts';
import { dataLinkPath } from '../../execution/layout/data-link.ts';
import { type ExecutionLayout, executionLayout } from '../../execution/layout/layout.ts';
import {
  agentRootEntries,
  clearInterruptedClone,
  cloneWorkspace,
  decideWorkspace,
  parseWorkspaceSpec,
  type ResolvedWorkspace,
  readWorkspaceRecord,
  resolveWorkspace,
  trackedIgnoredFiles,
  WorkspaceError,
} from '../../execution/workspace/index.ts';
import { notifierCompanion } from '../../host/notify/companion.ts';
import { LockHeldError, RUNTIME_EXIT, type Runtime, startRuntime } from '../../host/server/runtime.ts';
import { accessToken, dashboardCompanion } from '../../host/web-server/index.ts';
import {
  API_KEY_ONLY,
  agentKeyProblems,
  blockedPortProblems,
  keyVariables,
  missingProviderKeys,
  type ProviderUse,
  providerRoutes,
  providerUses,
  targetOf,
  unusableCredentialProblems,
  usualCredentialUsers,
  vendorDefaultProblems,
} from '../../llm/providers/providers.ts';
import { loadConfigFile } from '../../plan/config/config-file.ts';
import { resolveProxyConfig } from '../../plan/config/proxy-config.ts';
import { resolveServerSettings } from '../../plan/config/server-config.ts';
import { formatProblems, loadPlan, type Provider } from '../../plan/index.ts';
import {
  credentialProblem,
  OFFLINE_KEY,
  presentCredentials,
} from '../../platform/credentials/credentials.ts';
import { isLoopbackHost } from '../../platform/http/loopback.ts';
import { StorageFault } from '../../platform/storage/guard.ts';
import { killAtProblem } from '../../platform/storage/kill-point.ts';
import {
  exitSummaryLine,
  lastEventTimes,
  openExecutionDb,
  planRecordOf,
  readState,
  runRows,
  writePlanRecord,
} from '../runs/index.ts';
import { watchUntilDone } from './console-view.ts';
import { inspectRunDirs, runDirsProblem } from './run-dirs.ts';

export const EXIT = {
  ok: RUNTIME_EXIT.ok,
  failure: RUNTIME_EXIT.failure,
  invalidInput: 2,
  locked: 3,
  storageFailed: RUNTIME_EXIT.storageFailed,
} as const;

/** How long the terminal UI stays on its final screen before `--exit-when-done` ends it. */
const TUI_LINGER_MS = 2000;

export type RunFlags = {
  port?: string;
  host?: string;
  execution?: string;
  data?: string;
  output?: string;
  config?: string;
  headless?: boolean;
  autostart: boolean;
  allowOrigin?: string[];
  maxClients?: string;
  proxy?: boolean;
  proxyHost?: string;
  providerBaseUrl?: string;
  scriptedProvider?: string;
  exitWhenDone?: boolean;
  fresh?: boolean;
  model?: string;
  maxCost?: string;
  maxTime?: string;
  workspace?: string;
  web?: boolean;
  webPort?: string;
  token?: string;
};

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Run a plan and serve the control protocol over WebSocket')
    .argument('<plan-file>', 'plan file (YAML or JSON)')
    .option('--port <n>', 'WebSocket port (0 or absent = dynamic)')
    .option('--host <h>', 'address to bind (default 127.0.0.1)')
    .option('--execution <dir>', 'execution directory (default ./ribosome-runs/<plan name>)')
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
    .option('--proxy', 'run the LLM proxy on port + 1 (env SERVICE_RUNTIME_WITHOUT_PROXY=false)')
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
      'stop once the plan has run (exit 0) or a codon failed or was stopped (exit 1)',
    )
    .option('--model <id>', "the plan's model: every codon without a model of its own uses it")
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
    .action(async (planFile: string, flags: RunFlags) => {
      exitOnceStopped(await run(planFile, flags));
    });
}

/**
 * The server has stopped: exit with `code` as soon as nothing is left to do, and at the latest after
 * a grace period, so a handle someone forgot (a pipe of a failed spawn, a socket) never keeps a
 * stopped server's process alive.
 */
export function exitOnceStopped(code: number, graceMs = 3_000): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), graceMs).unref();
}

/** A model id as a provider takes it: printable, no spaces. */
const MODEL_ID = /^[\x21-\x7e]+$/;

function fail(message: string, code: number): number {
  process.stderr.write(`ribosome: ${message}\n`);
  return code;
}

export async function run(planFile: string, flags: RunFlags): Promise<number> {
  const startedAt = new Date();
  const killAt = killAtProblem();
  if (killAt) return fail(killAt, EXIT.invalidInput);
  if (flags.model !== undefined && !MODEL_ID.test(flags.model)) {
    return fail(
      `--model must be a model id such as claude-sonnet-4-5 (no spaces), got "${flags.model}"`,
      EXIT.invalidInput,
    );
  }
  const loaded = await loadPlan(planFile, {
    ...(flags.model === undefined ? {} : { model: flags.model }),
    // Like --model: the command line's provider replaces the plan's (not a codon's or sentinel's own).
    ...(flags.providerBaseUrl === undefined ? {} : { serverProvider: true }),
  });
  if (!loaded.ok) {
    process.stderr.write(`${formatProblems(loaded.problems, resolve(planFile))}\n`);
    return EXIT.invalidInput;
  }
  const plan = loaded.plan;
  if (loaded.warnings.length > 0) process.stderr.write(`${formatProblems(loaded.warnings, plan.path)}\n`);

  const file = flags.config
    ? await loadConfigFile(flags.config)
    : { ok: true as const, value: {}, warnings: [] };
  if (!file.ok) {
    process.stderr.write(`${formatProblems(file.problems, flags.config ?? '')}\n`);
    return EXIT.invalidInput;
  }
  if (file.warnings.length > 0)
    process.stderr.write(`${formatProblems(file.warnings, flags.config ?? '')}\n`);
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    return fail(`--port must be an integer from 0 to 65535, got "${flags.port}"`, EXIT.invalidInput);
  }
  const maxClients = flags.maxClients === undefined ? undefined : Number(flags.maxClients);
  if (maxClients !== undefined && !(Number.isInteger(maxClients) && maxClients >= 1)) {
    return fail(
      `--max-clients must be a whole number of at least 1, got "${flags.maxClients}"`,
      EXIT.invalidInput,
    );
  }
  const maxCostUsd = flags.maxCost === undefined ? undefined : parseCost(flags.maxCost);
  if (flags.maxCost !== undefined && maxCostUsd === undefined) {
    return fail(
      `--max-cost must be a positive number of US dollars (e.g. 2.50), got "${flags.maxCost}"`,
      EXIT.invalidInput,
    );
  }
  const maxDurationMs = flags.maxTime === undefined ? undefined : parseDuration(flags.maxTime);
  if (flags.maxTime !== undefined && maxDurationMs === undefined) {
    return fail(
      `--max-time must be a duration such as 90s, 30m or 2h (or milliseconds), got "${flags.maxTime}"`,
      EXIT.invalidInput,
    );
  }
  const settings = resolveServerSettings(file.value, {
    port,
    host: flags.host,
    allowOrigins: flags.allowOrigin,
    autostart: flags.autostart === false ? false : undefined,
    ...(maxClients === undefined ? {} : { limits: { maxClients } }),
    budget: runBudget({ maxCostUsd, maxDurationMs }),
  });
  if (!settings.ok) return fail(settings.message, EXIT.invalidInput);
  const webPort = flags.webPort === undefined ? undefined : Number(flags.webPort);
  if (webPort !== undefined && !(Number.isInteger(webPort) && webPort >= 0 && webPort <= 65535)) {
    return fail(`--web-port must be an integer from 0 to 65535, got "${flags.webPort}"`, EXIT.invalidInput);
  }
  const budget = runBudget(plan.budget, settings.value.budget);
  const proxy = resolveProxyConfig({
    cli: {
      ...(flags.proxy ? { proxy: true } : {}),
      ...(flags.providerBaseUrl ? { providerBaseUrl: flags.providerBaseUrl } : {}),
      ...(flags.proxyHost === undefined ? {} : { proxyHost: flags.proxyHost }),
    },
    env: process.env,
    file: file.value,
  });
  if (!proxy.ok) return fail(proxy.error.message, EXIT.invalidInput);
  const access = accessToken({
    flag: flags.token,
    env: process.env.RIBOSOME_TOKEN,
    // A proxy beyond loopback needs it as much as the server does.
    loopback:
      isLoopbackHost(settings.value.host) && (!proxy.value.enabled || isLoopbackHost(proxy.value.host)),
  });
  // The agents' processes inherit this environment: the token is the server's alone.
  delete process.env.RIBOSOME_TOKEN;
  if (!access.ok) return fail(access.message, EXIT.invalidInput);
  const vendorProblems = vendorDefaultProblems(process.env);
  if (vendorProblems.length > 0) return fail(vendorProblems.join('\n'), EXIT.invalidInput);

  let providerUrl = proxy.value.providerBaseUrl;
  const agentConfig = plan.raw.agentConfig ?? settings.value.agentConfig ?? 'isolated';
  const claudeConfig = plan.raw.claudeConfig ?? settings.value.claudeConfig ?? agentConfig;
  // Offline (--scripted-provider) every provider is the scripted one: nothing leaves the machine.
  const uses = flags.scriptedProvider ? [] : providerUses(plan, claudeConfig, agentConfig);
  const routes = providerRoutes(uses, providerUrl);
  // Offline too: no agent sees a key variable of the plan's providers.
  const keyVars = keyVariables(providerUses(plan, claudeConfig, agentConfig));
  const targetFor = (provider: Provider | undefined, kind: ProviderUse['kind']) =>
    targetOf(
      { provider: flags.scriptedProvider ? undefined : provider, kind },
      {
        serverUrl: providerUrl,
        proxyUrl: agentUrl,
        routes,
        keyVars,
      },
    );
  // First in, last out: the notifier outlives the other companions, so the run's last notices go out.
  const companions: Parameters<typeof startRuntime>[0]['companions'] = [
    notifierCompanion({ plan, configTargets: settings.value.notify }),
  ];
  if (flags.scriptedProvider) {
    const scriptPath = resolve(flags.scriptedProvider);
    companions.push(async ({ logger }) => {
      const { loadScript } = await import('../../llm/mock-provider/script-loader.ts');
      const { startMockProvider } = await import('../../llm/mock-provider/server.ts');
      const script = await loadScript(scriptPath);
      if (!script.ok) throw new Error(`scripted provider: ${script.error.message}`);
      const provider = await startMockProvider({ script: script.script, host: '127.0.0.1', port: 0 });
      providerUrl = provider.url;
      logger.info({ url: provider.url, script: scriptPath }, 'scripted provider listening');
      return provider;
    });
  }

  // The proxy starts after the scripted provider (if any), and agents then talk to it: through
  // agentUrl, which carries the run's agent credential when the proxy listens beyond loopback.
  let agentUrl: string | undefined;
  let proxyUrl: string | undefined;
  companions.push(async ({ logger, port: mainPort }) => {
    const { startProxyForServer } = await import('../../llm/proxy/start-for-server.ts');
    const handle = await startProxyForServer({
      config: { ...proxy.value, providerBaseUrl: providerUrl },
      mainPort,
      logger,
      configDir: flags.config ? dirname(resolve(flags.config)) : process.cwd(),
      routes,
      accessToken: access.token,
    });
    agentUrl = handle?.agentUrl;
    proxyUrl = handle?.url;
    return handle ?? { stop: async () => {} };
  });

  if (flags.web) {
    companions.push(
      dashboardCompanion({
        host: settings.value.host,
        webPort,
        token: access.token,
        root: process.env.RIBOSOME_WEB_ROOT || undefined,
        print: (line) => process.stderr.write(`${line}\n`),
      }),
    );
  }

  const chosen = chooseExecutionDir(plan.name, flags);
  if (!chosen.ok) return fail(chosen.message, EXIT.invalidInput);
  const executionDir = chosen.dir;
  const workspace = await chooseWorkspace(flags.workspace, plan, executionDir);
  if (!workspace.ok) return fail(workspace.message, EXIT.invalidInput);
  if (flags.scriptedProvider) {
    // The built-in scripted provider takes any key; Claude Code will not start without one.
    if (presentCredentials(process.env).length === 0) process.env.ANTHROPIC_API_KEY = OFFLINE_KEY;
  } else {
    const problem = startCredentialProblem(uses, providerUrl);
    if (problem) return fail(problem, EXIT.invalidInput);
  }
  // Every agent CLI the plan's codons need, before any codon runs and spends (offline too).
  const clis = missingPlanClis(plan.codons);
  if (clis) return fail(clis, EXIT.invalidInput);
  const mainPort = settings.value.port;
  const blocked = blockedPortProblems(uses, providerUrl, {
    enabled: proxy.value.enabled,
    ...(mainPort ? { port: mainPort + 1 } : {}),
  });
  if (blocked.length > 0) return fail(blocked.join('\n'), EXIT.invalidInput);
  const dataDir = resolve(flags.data ?? `${executionDir}/data`);
  const outputDir = resolve(flags.output ?? join(executionDir, 'output'));
  const agentRoot = executionLayout(executionDir, plan.agentRoot).agentRoot;
  const dirsProblem = runDirsProblem(await inspectRunDirs({ executionDir, agentRoot, dataDir, outputDir }));
  if (dirsProblem) return fail(dirsProblem, EXIT.invalidInput);
  let runtime: Runtime;
  let engine: Engine | undefined;
  try {
    runtime = await startRuntime({
      executionDir,
      dataDir,
      agentRootName: plan.agentRoot,
      readyExtras: () => ({
        plan: {
          name: plan.name,
          codons: plan.codons.map((c) => ({
            codonId: c.id,
            codonName: c.name,
            index: c.index,
            agent: c.agent,
            ...(c.description ? { description: c.description } : {}),
          })),
        },
        proxy: { enabled: proxy.value.enabled, ...(proxyUrl ? { url: proxyUrl } : {}) },
        ...(budget ? { budget } : {}),
      }),
      settings: settings.value,
      companions,
      token: access.token,
      createEngine: async (deps) => {
        if (workspace.clone) await cloneInto(workspace.clone, deps.layout, deps.logger);
        const checkpointInclude = await workspaceIncludes(deps.layout, deps.logger);
        // What `ribosome runs` and the exit summary count codons against (the database lacks the plan).
        deps.storage.write('plan record', () =>
          writePlanRecord(deps.layout.executionDir, planRecordOf(plan)),
        );
        engine = await createOrchestrator(deps, {
          plan,
          autostart: settings.value.autostart,
          ...(budget ? { budget } : {}),
          claudeConfig,
          agentConfig,
          checkpointInclude,
          provider: (codon) => targetFor(codon.provider, codon.agent),
          outputDir,
          hooks: ({ bus, logger, layout, journal }, record) =>
            createSentinelHooks({
              bus,
              logger,
              provider: (sentinel) => targetFor(sentinel.provider, 'sentinel'),
              outputDir: join(layout.internal, 'sentinels'),
              paths: { agentRoot: layout.agentRoot, dataDir: dataLinkPath(layout.agentRoot) },
              emitTriggered: file.value.sentinelTriggeredEvents === true,
              onCost: record.cost,
              onStates: record.states,
              engine: record.engine,
              sendMessage: record.sendMessage,
              redos: journalRedos(() => journal.ofIndexedType('sentinel.action')),
            }),
        });
        return engine;
      },
    });
  } catch (error) {
    if (error instanceof WorkspaceError) return fail(error.message, EXIT.invalidInput);
    if (error instanceof LockHeldError) return fail(error.message, EXIT.locked);
    if (error instanceof StorageFault) return fail(storageNotice(error, 'cannot start'), EXIT.storageFailed);
    return fail((error as Error).message, EXIT.failure);
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void runtime.stop(`received ${signal}`));
  }
  keepServingOnStrayErrors(runtime);
  const resumed = engine?.readyInfo?.().resumed;
  if (resumed)
    process.stderr.write(`${resumeNotice(relative(process.cwd(), executionDir) || '.', resumed)}\n`);
  else if (chosen.fresh) process.stderr.write(`ribosome: starting afresh in ${executionDir}\n`);
  // Shown once; with --web the dashboard's address carries it instead.
  if (access.generated && !flags.web) {
    process.stderr.write(
      `ribosome: access token (clients send Authorization: Bearer <token>): ${access.token}\n`,
    );
  }
  if (proxyUrl && agentUrl !== proxyUrl) {
    process.stderr.write(
      `ribosome: the LLM proxy listens beyond loopback (${proxyUrl}): clients need the access token, as the base URL <proxy>/t/<token> or the header x-ribosome-token\n`,
    );
  }
  process.stdout.write(`listening ${runtime.url}\n`);
  let code = EXIT.ok as number;
  const tui = !flags.headless && process.stdout.isTTY === true && process.stdin.isTTY === true;
  if (tui) {
    // One command, server and UI: the terminal UI is a client like any other; quitting it stops the server.
    const { startTui } = await (await import('../tui/load.ts')).loadTui();
    // --exit-when-done: once the plan is done (or a codon failed), the UI ends by itself after a
    // moment showing the final screen, with the exit code the console view would give.
    const ended = new AbortController();
    let doneWhy: string | undefined;
    if (flags.exitWhenDone) {
      code = EXIT.failure;
      void watchUntilDone(runtime.url, {
        print: false,
        token: access.token,
        onDone: (ok, why) => {
          code = ok ? EXIT.ok : EXIT.failure;
          doneWhy = why;
          setTimeout(() => ended.abort(), TUI_LINGER_MS).unref();
        },
      }).catch((error: unknown) =>
        process.stderr.write(`ribosome: watching the run: ${(error as Error).message}\n`),
      );
    }
    void startTui({
      url: runtime.url,
      quitStopsServer: true,
      token: access.token,
      signal: ended.signal,
    }).then((uiCode) => {
      if (!flags.exitWhenDone) code = uiCode;
      else if (uiCode !== EXIT.ok && doneWhy === undefined) code = uiCode;
      void runtime.stop(doneWhy ?? 'the terminal UI quit');
    });
    // The terminal went away (closed window, dropped SSH, killed tmux): like quitting the UI. Only
    // here: a headless server under nohup must keep ignoring SIGHUP.
    const terminalGone = () => void runtime.stop('the terminal closed');
    process.once('SIGHUP', terminalGone);
    process.stdout.once('error', terminalGone);
  } else if (!flags.headless || flags.exitWhenDone) {
    // --exit-when-done promises 0 only for a plan that has run: stopped before that (a shutdown,
    // a signal) it is 1, unless the plan turns out done.
    if (flags.exitWhenDone) code = EXIT.failure;
    void watchUntilDone(runtime.url, {
      print: !flags.headless,
      token: access.token,
      onDone: (ok, why) => {
        if (!flags.exitWhenDone) return;
        code = ok ? EXIT.ok : EXIT.failure;
        void runtime.stop(why);
      },
    }).catch((error: unknown) =>
      process.stderr.write(`ribosome: console view: ${(error as Error).message}\n`),
    );
  }
  const stopped = await runtime.stopped;
  if (runtime.fault) process.stderr.write(`ribosome: ${storageNotice(runtime.fault, 'stopped')}\n`);
  if (stopped === EXIT.ok && flags.exitWhenDone && code !== EXIT.ok) {
    process.stderr.write('ribosome: stopped before every codon was done (--exit-when-done exits 1)\n');
  }
  const exitCode = stopped === EXIT.ok ? code : stopped;
  if ((flags.headless || tui) && flags.exitWhenDone) {
    process.stderr.write(`${summaryLine(executionDir, plan, startedAt, exitCode, runtime.stopReason)}\n`);
  }
  return exitCode;
}

/**
 * The line that ends a headless `--exit-when-done` run on stderr: codons done of total and those that
 * failed, as the database recorded them (read back, read-only, now that the server has stopped), what
 * this server's runs spent, how long it ran, and why it stopped.
 */
function summaryLine(
  executionDir: string,
  plan: Parameters<typeof planRecordOf>[0],
  startedAt: Date,
  code: number,
  reason: string | undefined,
): string {
  const now = new Date();
  let rows: ReturnType<typeof runRows> = [];
  try {
    const db = openExecutionDb(executionDir);
    try {
      rows = runRows(readState(db), {
        plan: planRecordOf(plan),
        serverAlive: false,
        lastEventAt: lastEventTimes(db),
        now,
      });
    } finally {
      db.close();
    }
  } catch {
    // An unreadable database (the storage fault that stopped the server): the line says less.
  }
  const ours = rows.filter((r) => Date.parse(r.startedAt) >= startedAt.getTime());
  return exitSummaryLine({
    latest: rows.at(-1),
    cost: ours.reduce((sum, r) => sum + r.cost, 0),
    costEstimated: ours.some((r) => r.costEstimated),
    durationMs: now.getTime() - startedAt.getTime(),
    code,
    reason,
  });
}

/**
 * Why the run cannot reach its providers, or undefined: a provider off this machine whose key
 * variable (apiKeyEnv) is not set, or one without apiKeyEnv when no usual credential variable is
 * (Claude Code with the user's own configuration may be authenticated by their login; in its own,
 * it needs a credential even for a gateway on this machine). Names only.
 */
function startCredentialProblem(uses: ProviderUse[], serverUrl: string): string | undefined {
  const missing = [
    ...missingProviderKeys(uses, process.env),
    ...agentKeyProblems(uses, serverUrl, process.env),
  ];
  if (missing.length > 0) return missing.join('\n');
  const unusable = unusableCredentialProblems(uses, serverUrl, process.env);
  if (unusable.length > 0) return unusable.join('\n');
  const users = usualCredentialUsers(uses, serverUrl);
  // An agent that sends ANTHROPIC_API_KEY only is named, so the advice is what it accepts.
  const apiKeyOnly = users.find((use) => API_KEY_ONLY.has(use.kind));
  const first = apiKeyOnly ?? users[0];
  if (!first) return undefined;
  const problem = credentialProblem({
    providerUrl: first.url,
    scripted: false,
    env: process.env,
    claudeCode: first.local,
    ...(apiKeyOnly ? { apiKeyOnly: apiKeyOnly.kind } : {}),
  });
  if (!problem) return undefined;
  const more = users.length > 1 ? ` (and ${users.length - 1} more)` : '';
  return `${first.who}${more}: ${problem}`;
}

/**
 * The execution directory: `--execution`, or `ribosome-runs/<plan name>`, which a second
 * `ribosome run` resumes. `--fresh` leaves a directory that already has runs untouched and takes a
 * new one beside it (the default name plus the time); an explicit `--execution` with runs is refused.
 */
export function chooseExecutionDir(
  planName: string,
  flags: Pick<RunFlags, 'execution' | 'fresh'>,
  now = new Date(),
): { ok: true; dir: string; fresh: boolean } | { ok: false; message: string } {
  const dir = resolve(flags.execution ?? `ribosome-runs/${planName}`);
  if (!flags.fresh || !hasRuns(dir)) return { ok: true, dir, fresh: Boolean(flags.fresh) };
  if (flags.execution) {
    return {
      ok: false,
      message: `--fresh: ${dir} already holds runs; name a new --execution directory, or leave --fresh out to resume it`,
    };
  }
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return { ok: true, dir: resolve(`ribosome-runs/${planName}-${stamp}`), fresh: true };
}

/**
 * The workspace of this start (`--workspace` over the plan's `workspace:`): checked and resolved
 * before anything starts when a fresh execution will be cloned from it; on an execution that has one
 * already (or has runs), the notice that it is kept.
 */
async function chooseWorkspace(
  option: string | undefined,
  plan: { workspace?: string; dir: string; agentRoot: string },
  executionDir: string,
): Promise<{ ok: true; clone?: ResolvedWorkspace } | { ok: false; message: string }> {
  const given = option ?? plan.workspace;
  if (given === undefined) return { ok: true };
  const spec = parseWorkspaceSpec(given, option === undefined ? plan.dir : process.cwd());
  if (!spec.ok) return spec;
  const { agentRoot, internal } = executionLayout(executionDir, plan.agentRoot);
  const decision = decideWorkspace({
    spec: spec.value,
    recorded: readWorkspaceRecord(executionDir),
    hasRuns: hasRuns(executionDir),
    agentRoot,
    agentRootEntries: agentRootEntries(agentRoot, internal),
  });
  if (decision.action === 'refuse') return { ok: false, message: decision.message };
  if (decision.action === 'keep') process.stderr.write(`${decision.notice}\n`);
  if (decision.action !== 'clone') return { ok: true };
  try {
    return { ok: true, clone: await resolveWorkspace(spec.value) };
  } catch (error) {
    if (error instanceof WorkspaceError) return { ok: false, message: error.message };
    throw error;
  }
}

/** Clones the workspace under the runtime lock, checking again that the agent root is still empty. */
async function cloneInto(
  workspace: ResolvedWorkspace,
  layout: ExecutionLayout,
  logger: { info(o: object, m: string): void },
): Promise<void> {
  const cleared = await clearInterruptedClone(layout);
  if (cleared.length > 0) {
    logger.info({ entries: cleared }, 'a clone killed half-way taken out of the agent root');
    process.stderr.write(
      `ribosome: the last start was stopped while it cloned the workspace; what it had moved into the agent root (${cleared.slice(0, 3).join(', ')}${cleared.length > 3 ? ', ...' : ''}) is taken out and the clone made again\n`,
    );
  }
  const entries = agentRootEntries(layout.agentRoot);
  if (entries.length > 0) {
    throw new WorkspaceError(
      `workspace: the agent root ${layout.agentRoot} already holds files (${entries.slice(0, 3).join(', ')}); a workspace is cloned only into an empty one`,
    );
  }
  const record = await cloneWorkspace(workspace, layout);
  logger.info({ workspace: record }, 'agent root cloned from the workspace');
  process.stderr.write(
    `ribosome: agent root cloned from ${record.repo} at ${record.ref ?? 'HEAD'} (${record.commit.slice(0, 12)})\n`,
  );
}

/**
 * A workspace's tracked files that its .gitignore matches: the checkpoints take them too, so the
 * agent's changes to them reach export and rollback. Read from the clone at every start.
 */
async function workspaceIncludes(
  layout: ExecutionLayout,
  logger: { warn(o: object, m: string): void },
): Promise<Buffer[]> {
  if (readWorkspaceRecord(layout.executionDir) === undefined) return [];
  const found = await trackedIgnoredFiles(layout.agentRoot);
  if (found.ok) return found.value;
  logger.warn({ reason: found.message }, 'tracked ignored files of the workspace not known');
  return [];
}

/** A directory holds runs once its database has a transition (a start that failed early leaves none). */
function hasRuns(dir: string): boolean {
  const file = executionLayout(dir).database;
  if (!existsSync(file)) return false;
  try {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db.prepare('SELECT 1 FROM transitions LIMIT 1').get() !== undefined;
    } finally {
      db.close();
    }
  } catch (error) {
    if (/no such table/.test((error as Error).message)) return false;
    return true; // Unreadable: better refused than written over.
  }
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

/** What a storage failure means for the person at the terminal. */
function storageNotice(fault: StorageFault, what: 'stopped' | 'cannot start'): string {
  return `${what}: ${fault.message} (exit ${EXIT.storageFailed}). Nothing recorded was lost: free space (or repair the disk), then run the plan again to resume.`;
}

/**
 * A failure that escapes every handler must not take the server (and the work it holds) down: it
 * is logged (with its stack) and reported to clients as an error event, and the server keeps serving.
 */
function keepServingOnStrayErrors(runtime: Runtime): void {
  // A write to a terminal that is gone (EIO) or a closed pipe (EPIPE) is no stray error: reported
  // on that same stream it would fail again, in a loop that fills the log and the journal.
  const broken = new Set<NodeJS.WriteStream>();
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (broken.has(stream)) return;
      broken.add(stream);
      runtime.logger.warn(
        { err: error },
        `cannot write to ${stream === process.stdout ? 'stdout' : 'stderr'}`,
      );
    });
  }
  const report = (error: unknown, what: string) => {
    runtime.logger.error({ err: error }, `${what}; the server keeps running`);
    if (!broken.has(process.stderr))
      process.stderr.write(
        `ribosome: ${what} (see the server log): ${(error as Error)?.message ?? String(error)}\n`,
      );
    runtime.bus
      .publish('error', {
        message: `internal error (${what}): ${(error as Error)?.message ?? String(error)}`,
        fatal: false,
        severity: 'warning',
        code: 'INTERNAL_ERROR',
      })
      .catch(() => {});
  };
  process.on('uncaughtException', (error) => report(error, 'uncaught exception'));
  process.on('unhandledRejection', (reason) => report(reason, 'unhandled rejection'));
}
