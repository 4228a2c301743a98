import { dirname, resolve } from 'node:path';
import type { BudgetLimits } from '../../../core/protocol/index.ts';
import { hasCostLimit, parseCost, parseDuration, runBudget } from '../../../engine/budgets/limits.ts';
import { accessToken } from '../../../host/web-server/index.ts';
import type { Cassette } from '../../../llm/cassette/schema.ts';
import { vendorDefaultProblems } from '../../../llm/providers/providers.ts';
import { loadConfigFile } from '../../../plan/config/config-file.ts';
import { type ProxyConfig, resolveProxyConfig } from '../../../plan/config/proxy-config.ts';
import { resolveServerSettings, type ServerSettings } from '../../../plan/config/server-config.ts';
import { formatProblems, type LoadedPlan, loadPlan } from '../../../plan/index.ts';
import { Agent, ENV_NAME_PATTERN, MODEL_ID_PATTERN } from '../../../plan/primitives.ts';
import { isLoopbackHost } from '../../../platform/http/loopback.ts';
import { sandboxSupport } from '../../../platform/sandbox/index.ts';
import { killAtProblem } from '../../../platform/storage/kill-point.ts';
import { EXIT, type Refusal, refuse } from './exit.ts';
import { type RunSandbox, runSandbox, sandboxFlag } from './sandbox-start.ts';
import { sharedLimitsDir } from './shared-limits.ts';

/** `ribosome run`'s options as commander gives them. */
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
  /** `--agent NAME`: the plan's agent (every codon without one of its own). */
  agent?: string;
  /** `--var NAME=VALUE`, repeated: environment variables of every codon, over the plan's defaults.env. */
  var?: string[];
  maxCost?: string;
  maxTime?: string;
  workspace?: string;
  web?: boolean;
  webPort?: string;
  token?: string;
  /** `--sandbox MODE`; `--no-sandbox`: false. */
  sandbox?: string | boolean;
  /** `--record`: keep a cassette of every LLM exchange (docs/testing-plans.md). */
  record?: boolean;
  /** `--shared-limits DIR`: usage limits shared with other runs on the same credential. */
  sharedLimits?: string;
  /** `--approve-all`: every approval gate is approved at once (docs/review.md#approval-gates). */
  approveAll?: boolean;
};

/** A replay's own settings (`ribosome replay`, docs/testing-plans.md). */
export type ReplaySettings = {
  /** The cassette file. */
  path: string;
  cassette: Cassette;
  /** A miss fails its codon (`fail`), or is asked of the live provider and recorded (`live`). */
  onMiss: 'fail' | 'live';
  /** Sentinels answer from the cassette, or ask the live provider. */
  sentinels: 'cassette' | 'live';
  /** As fast as the agents read, or with the recorded timing. */
  pace: 'fast' | 'recorded';
  /** Compare the outcome with the recording's once the run ends. */
  check: boolean;
  /** The recording's execution directory, when the replay was given one: its outcome is read there. */
  recordedExecution?: string;
};

/** Recording or replay of the run's LLM exchanges. */
export type CassetteMode = { mode: 'record' } | ({ mode: 'replay' } & ReplaySettings);

type ConfigOwner = NonNullable<ServerSettings['agentConfig']>;

/** One start of `ribosome run`, checked: the plan, its settings, and the flags, resolved. */
export type RunRequest = {
  plan: LoadedPlan;
  settings: ServerSettings;
  /** The run's budget: the plan's, under the command line's and the config file's. */
  budget: BudgetLimits | undefined;
  proxy: ProxyConfig;
  /** The config file's folder (else the working directory): user middleware paths are relative to it. */
  configDir: string;
  sentinelTriggeredEvents: boolean;
  /** The token every upgrade needs; `generated` when Ribosome made it (shown once). */
  access: { token: string | undefined; generated: boolean };
  agentConfig: ConfigOwner;
  claudeConfig: ConfigOwner;
  /** Where each codon's agent runs: confined or not (docs/agents.md#the-sandbox). */
  sandbox: RunSandbox;
  /** --scripted-provider: the script's path. Offline: every provider is the scripted one. */
  scriptedProvider: string | undefined;
  /** --web: the dashboard, on `port` (undefined: the WebSocket port + 2). */
  web: { port: number | undefined } | undefined;
  headless: boolean;
  exitWhenDone: boolean;
  /** `--approve-all` (config `approveAll`): every approval wait ends at once, journaled (how `auto`). */
  approveAll: boolean;
  /** Recording (`--record`, `record: true`) or replay (`ribosome replay`); absent: neither. */
  cassette: CassetteMode | undefined;
  /** The directory of usage limits shared with other runs (`--shared-limits`, `sharedLimits`), made. */
  sharedLimits: string | undefined;
  /** Where the run keeps its files (as given; chosen by `placeExecution`). */
  where: Pick<RunFlags, 'execution' | 'fresh' | 'data' | 'output' | 'workspace'>;
};

/**
 * Checks the flags, the plan and the config file, in that order, into one request; the first
 * problem refuses the start. Warnings go to `warn` as they are found.
 */
export async function parseRunFlags(
  planFile: string,
  flags: RunFlags,
  warn: (text: string) => void,
  replay?: ReplaySettings,
): Promise<{ ok: true; value: RunRequest } | Refusal> {
  const killAt = killAtProblem();
  if (killAt) return refuse(killAt);
  if (flags.model !== undefined && !MODEL_ID_PATTERN.test(flags.model)) {
    return refuse(`--model must be a model id such as claude-sonnet-4-5 (no spaces), got "${flags.model}"`);
  }
  const agent = flags.agent === undefined ? undefined : Agent.safeParse(flags.agent);
  if (agent && !agent.success) {
    return refuse(`--agent must be one of ${Agent.options.join(', ')}, got "${flags.agent}"`);
  }
  const vars = parseVars(flags.var ?? []);
  if (!vars.ok) return refuse(vars.message);
  const loaded = await loadPlan(planFile, {
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(agent?.success ? { agent: agent.data } : {}),
    ...(Object.keys(vars.value).length === 0 ? {} : { env: vars.value }),
    // Like --model: the command line's provider replaces the plan's (not a codon's or sentinel's own).
    ...(flags.providerBaseUrl === undefined ? {} : { serverProvider: true }),
  });
  if (!loaded.ok) {
    return { ok: false, code: EXIT.invalidInput, text: formatProblems(loaded.problems, resolve(planFile)) };
  }
  const plan = loaded.plan;
  if (loaded.warnings.length > 0) warn(formatProblems(loaded.warnings, plan.path));

  const file = flags.config
    ? await loadConfigFile(flags.config)
    : { ok: true as const, value: {}, warnings: [] };
  if (!file.ok) {
    return { ok: false, code: EXIT.invalidInput, text: formatProblems(file.problems, flags.config ?? '') };
  }
  if (file.warnings.length > 0) warn(formatProblems(file.warnings, flags.config ?? ''));
  // `ribosome replay` has no --record: what it asks live goes into a cassette of its own.
  const cassette: CassetteMode | undefined = replay
    ? { mode: 'replay', ...replay }
    : flags.record || file.value.record === true
      ? { mode: 'record' }
      : undefined;
  const configDir = flags.config ? dirname(resolve(flags.config)) : process.cwd();
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && !isPort(port)) {
    return refuse(`--port must be an integer from 0 to 65535, got "${flags.port}"`);
  }
  const maxClients = flags.maxClients === undefined ? undefined : Number(flags.maxClients);
  if (maxClients !== undefined && !(Number.isInteger(maxClients) && maxClients >= 1)) {
    return refuse(`--max-clients must be a whole number of at least 1, got "${flags.maxClients}"`);
  }
  const maxCostUsd = flags.maxCost === undefined ? undefined : parseCost(flags.maxCost);
  if (flags.maxCost !== undefined && maxCostUsd === undefined) {
    return refuse(`--max-cost must be a positive number of US dollars (e.g. 2.50), got "${flags.maxCost}"`);
  }
  const maxDurationMs = flags.maxTime === undefined ? undefined : parseDuration(flags.maxTime);
  if (flags.maxTime !== undefined && maxDurationMs === undefined) {
    return refuse(
      `--max-time must be a duration such as 90s, 30m or 2h (or milliseconds), got "${flags.maxTime}"`,
    );
  }
  const sandboxMode = sandboxFlag(flags.sandbox);
  if (!sandboxMode.ok) return sandboxMode;
  const settings = resolveServerSettings(file.value, {
    port,
    host: flags.host,
    allowOrigins: flags.allowOrigin,
    autostart: flags.autostart === false ? false : undefined,
    ...(maxClients === undefined ? {} : { limits: { maxClients } }),
    budget: runBudget({ maxCostUsd, maxDurationMs }),
  });
  if (!settings.ok) return refuse(settings.message);
  const webPort = flags.webPort === undefined ? undefined : Number(flags.webPort);
  if (webPort !== undefined && !isPort(webPort)) {
    return refuse(`--web-port must be an integer from 0 to 65535, got "${flags.webPort}"`);
  }
  const proxy = resolveProxyConfig({
    cli: {
      ...(flags.proxy === undefined ? {} : { proxy: flags.proxy }),
      ...(flags.providerBaseUrl ? { providerBaseUrl: flags.providerBaseUrl } : {}),
      ...(flags.proxyHost === undefined ? {} : { proxyHost: flags.proxyHost }),
    },
    env: process.env,
    file: file.value,
    costLimited: hasCostLimit(runBudget(plan.budget, settings.value.budget), plan.codons),
    ...(cassette ? { cassette: cassette.mode } : {}),
  });
  if (!proxy.ok) return refuse(proxy.error.message);
  const access = accessToken({
    flag: flags.token,
    env: process.env.RIBOSOME_TOKEN,
    // A proxy beyond loopback needs it as much as the server does.
    loopback:
      isLoopbackHost(settings.value.host) && (!proxy.value.enabled || isLoopbackHost(proxy.value.host)),
  });
  // The agents' processes inherit this environment: the token is the server's alone.
  delete process.env.RIBOSOME_TOKEN;
  if (!access.ok) return refuse(access.message);
  const vendorProblems = vendorDefaultProblems(process.env);
  if (vendorProblems.length > 0) return refuse(vendorProblems.join('\n'));

  const sandbox = runSandbox(plan, settings.value.sandbox, sandboxMode.mode, sandboxSupport());
  if (!sandbox.ok) return sandbox;
  if (sandbox.value.warning) warn(sandbox.value.warning);

  // Last: the directory is made when missing, and a start refused for another reason makes none.
  const sharedLimits = sharedLimitsDir({
    flag: flags.sharedLimits,
    file: typeof file.value.sharedLimits === 'string' ? file.value.sharedLimits : undefined,
    configDir,
  });
  if (!sharedLimits.ok) return sharedLimits;

  const agentConfig = plan.raw.agentConfig ?? settings.value.agentConfig ?? 'isolated';
  return {
    ok: true,
    value: {
      plan,
      settings: settings.value,
      budget: runBudget(plan.budget, settings.value.budget),
      proxy: proxy.value,
      configDir,
      sentinelTriggeredEvents: file.value.sentinelTriggeredEvents === true,
      access: { token: access.token, generated: access.generated },
      agentConfig,
      claudeConfig: plan.raw.claudeConfig ?? settings.value.claudeConfig ?? agentConfig,
      sandbox: sandbox.value,
      scriptedProvider: flags.scriptedProvider ? resolve(flags.scriptedProvider) : undefined,
      web: flags.web ? { port: webPort } : undefined,
      headless: flags.headless === true,
      exitWhenDone: flags.exitWhenDone === true,
      approveAll: flags.approveAll === true || file.value.approveAll === true,
      cassette,
      sharedLimits: sharedLimits.value,
      where: {
        execution: flags.execution,
        fresh: flags.fresh,
        data: flags.data,
        output: flags.output,
        workspace: flags.workspace,
      },
    },
  };
}

function isPort(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 65535;
}

/** `--var NAME=VALUE` flags as an environment; the first malformed one is refused. */
export function parseVars(
  given: readonly string[],
): { ok: true; value: Record<string, string> } | { ok: false; message: string } {
  const value: Record<string, string> = {};
  for (const text of given) {
    const eq = text.indexOf('=');
    const name = eq < 0 ? text : text.slice(0, eq);
    if (eq < 0 || !ENV_NAME_PATTERN.test(name)) {
      return {
        ok: false,
        message: `--var must be NAME=VALUE with NAME a variable name (letters, digits, _; not starting with a digit), got "${text}"`,
      };
    }
    value[name] = text.slice(eq + 1);
  }
  return { ok: true, value };
}
