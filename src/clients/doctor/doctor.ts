import { readFileSync } from 'node:fs';
import { AGENT_CLIS } from '../../agents/registry/agent-clis.ts';
import { type ProviderBaseUrlResult, resolveProviderBaseUrl } from '../../plan/config/proxy-config.ts';
import type { Agent } from '../../plan/primitives.ts';
import { claudeLoginFile } from '../../platform/credentials/claude-login.ts';
import { sandboxSupport } from '../../platform/sandbox/index.ts';
import { type CheckResult, type DoctorReport, report } from './check-result.ts';
import { checkAgentKeys, checkCredentials } from './credentials.ts';
import { checkExecutionDir } from './execution-dir.ts';
import { checkMcpServers, type PlanMcpServer } from './mcp-servers.ts';
import { checkNodeVersion } from './node-version.ts';
import { checkPort } from './port.ts';
import { checkProvider } from './provider.ts';
import { checkSandbox } from './sandbox.ts';
import { checkScripted } from './scripted.ts';
import { checkAgentCli, checkGit } from './tools.ts';

export type DoctorOptions = {
  /** [executionDir='ribosome-runs'] Where runs go (run's default is ribosome-runs/<plan name>). */
  executionDir: string;
  /** [host='127.0.0.1'] */
  host: string;
  /** [port=0] run's default: a dynamic port. */
  port: number;
  /** --provider-base-url: over the environment and the config file, as for `ribosome run`. */
  providerBaseUrl?: string | undefined;
  /** The config file (--config), checked; its `providerBaseUrl` is read. */
  config?: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  nodeVersion: string;
  providerTimeoutMs?: number;
  /** --version-timeout: how long git's and each agent CLI's `--version` may take (default 10 s). */
  versionTimeoutMs?: number;
  /** --scripted-provider: an offline setup; its script is checked instead of credentials and provider. */
  scriptedProvider?: string | undefined;
  /**
   * --plan: the MCP servers of its codons, each started or reached once and its tools listed; a
   * relative `cwd` is taken from the plan's directory `dir`.
   */
  plan?: { dir: string; mcpServers: readonly PlanMcpServer[] };
  /** [30 s, or MCP_TIMEOUT in ms] How long each MCP server may take to start and list its tools. */
  mcpTimeoutMs?: number;
};

const DEFAULT_MCP_TIMEOUT_MS = 30_000;

const ENGINES_NODE: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    engines: { node: string };
  }
).engines.node;

/** The server's provider exactly as `ribosome run` resolves it (src/plan/config/proxy-config.ts). */
export function doctorProvider(
  options: Pick<DoctorOptions, 'providerBaseUrl' | 'config' | 'env'>,
): ProviderBaseUrlResult {
  const fromFile = options.config?.providerBaseUrl;
  return resolveProviderBaseUrl({
    cli: { providerBaseUrl: options.providerBaseUrl },
    env: options.env,
    file: { providerBaseUrl: typeof fromFile === 'string' ? fromFile : undefined },
  });
}

/** Runs every check (the slow ones at once) and returns them in a fixed order. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const { scriptedProvider } = options;
  const [git, clis, access, port, mcp] = await Promise.all([
    checkGit(options.env, options.versionTimeoutMs),
    // Each agent CLI (Claude Code first) found and its version, or missing: a warning.
    Promise.all(
      Object.values(AGENT_CLIS).map((cli) =>
        checkAgentCli(cli, options.env, undefined, options.versionTimeoutMs),
      ),
    ),
    // Offline: the script stands for the credentials and the provider.
    scriptedProvider === undefined
      ? checkProvider(doctorProvider(options), options.providerTimeoutMs).then((provider) => [
          checkCredentials(options.env, claudeLoginFile(options.env)),
          provider,
        ])
      : checkScripted(scriptedProvider),
    checkPort(options.host, options.port),
    options.plan
      ? checkMcpServers(options.plan.mcpServers, {
          env: options.env,
          baseDir: options.plan.dir,
          timeoutMs: options.mcpTimeoutMs ?? mcpTimeout(options.env.MCP_TIMEOUT),
        })
      : [],
  ]);
  const [credentials, provider] = access as [CheckResult, CheckResult];
  // The key each found agent CLI authenticates with (codex's OPENAI_API_KEY, ...): none offline.
  const found = (Object.keys(AGENT_CLIS) as Agent[]).filter((_, i) => clis[i]?.status === 'ok');
  return report([
    checkNodeVersion(options.nodeVersion, ENGINES_NODE),
    git,
    ...clis,
    credentials,
    ...(scriptedProvider === undefined ? checkAgentKeys(options.env, found) : []),
    provider,
    checkExecutionDir(options.executionDir),
    port,
    checkSandbox(sandboxSupport(), configMode(options.config?.sandbox)),
    ...mcp,
  ]);
}

/** MCP_TIMEOUT (milliseconds, as agents read it), or the default when it is not a positive number. */
function mcpTimeout(value: string | undefined): number {
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? ms : DEFAULT_MCP_TIMEOUT_MS;
}

/** The mode a config file's `sandbox` sets, if any. */
function configMode(setting: unknown): string | undefined {
  if (typeof setting === 'string') return setting;
  const mode = (setting as { mode?: unknown } | undefined)?.mode;
  return typeof mode === 'string' ? mode : undefined;
}
