import { z } from 'zod';
import type { Result } from '../../core/result.ts';
import { parseTarget } from '../../platform/http/target.ts';
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_IN_FLIGHT_BYTES,
} from './proxy-defaults.ts';

/** A user middleware: its module path (relative to the config file) and options for a factory export. */
export const MiddlewareSpecSchema = z.strictObject({
  module: z.string().min(1),
  options: z.record(z.string(), z.unknown()).optional(),
});

export type MiddlewareSpec = z.infer<typeof MiddlewareSpecSchema>;

export const DEFAULT_PROVIDER_BASE_URL = 'https://api.anthropic.com';

/** Where the proxy listens unless told otherwise, whatever --host says: agents run on this machine. */
export const DEFAULT_PROXY_HOST = '127.0.0.1';

/** A user middleware in the file: a module path (relative to the file) or `{ module, options }`. */
const FileMiddlewareSchema = z
  .union([
    z
      .string()
      .min(1)
      .transform((module) => ({ module })),
    MiddlewareSpecSchema,
  ])
  .describe('A middleware module path (relative to the config file), or { module, options }.');

/**
 * The proxy's keys of the config file (part of the one config file schema, src/plan/config/config-file.ts).
 * Each description is what schema/config.schema.json and the config file's problems show.
 */
export const ProxyFileKeys = z.object({
  withoutProxy: z
    .boolean()
    .optional()
    .describe(
      'false starts the LLM proxy on the main port + 1 (like --proxy); true keeps it off (like --no-proxy). Unset: no proxy, unless a cost limit is set, which it then holds before each request.',
    ),
  proxyHost: z
    .string()
    .min(1)
    .optional()
    .describe(
      `Address the LLM proxy binds (--proxy-host over it), whatever --host is. Beyond loopback each request needs the access token. Default ${DEFAULT_PROXY_HOST}.`,
    ),
  providerBaseUrl: z
    .string()
    .optional()
    .describe(
      `The server's LLM provider, an http(s) base URL (--provider-base-url, SERVICE_RUNTIME_PROVIDER_BASE_URL and ANTHROPIC_BASE_URL over it). Default ${DEFAULT_PROVIDER_BASE_URL}.`,
    ),
  proxyMiddleware: z
    .array(FileMiddlewareSchema)
    .optional()
    .describe("The user's proxy middleware, in order: module paths relative to the config file."),
  proxyDoubleMaxTokens: z
    .boolean()
    .optional()
    .describe("The proxy doubles each Messages request's max_tokens. Default false."),
  proxyIdleTimeoutMs: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      `Milliseconds the proxy waits for a silent provider before a 504; 0 = no limit. Default ${DEFAULT_IDLE_TIMEOUT_MS}.`,
    ),
  proxyMaxBodyBytes: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      `Largest request body the proxy takes (413 above). Default ${DEFAULT_MAX_BODY_BYTES} (32 MiB).`,
    ),
  proxyMaxInFlightBytes: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      `Request bytes held across all exchanges at once (503 above), at least proxyMaxBodyBytes. Default ${DEFAULT_MAX_IN_FLIGHT_BYTES} (256 MiB).`,
    ),
  proxyLogBodies: z
    .boolean()
    .optional()
    .describe('Log the first 200 bytes of non-Messages bodies (prompt text: debugging only). Default false.'),
});

/**
 * What the proxy's keys may not be together (pure): the in-flight limit below the body limit would
 * refuse every body of the allowed size. Both the config file's check (`ribosome validate`, `run
 * --config`, placed at the key) and resolveProxyConfig use it.
 */
export function proxyKeyConflicts(keys: {
  proxyMaxBodyBytes?: number | undefined;
  proxyMaxInFlightBytes?: number | undefined;
}): Array<{ key: keyof z.infer<typeof ProxyFileKeys>; message: string }> {
  const maxBodyBytes = keys.proxyMaxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxInFlightBytes = keys.proxyMaxInFlightBytes;
  if (maxInFlightBytes === undefined || maxInFlightBytes >= maxBodyBytes) return [];
  return [
    {
      key: 'proxyMaxInFlightBytes',
      message:
        `proxyMaxInFlightBytes (${maxInFlightBytes}) must be at least proxyMaxBodyBytes ` +
        `(${maxBodyBytes}${keys.proxyMaxBodyBytes === undefined ? ', its default' : ''}), or a body of the allowed size could never be taken.`,
    },
  ];
}

export const ProxyConfigSchema = z.object({
  enabled: z.boolean(),
  /**
   * Why the proxy is on when nothing asked for it: `budget`, a cost limit it holds before each
   * request (docs/unattended.md#budgets); `cassette`, a recording or a replay, which it keeps
   * (docs/testing-plans.md). Absent when a source said on or off.
   */
  enabledFor: z.enum(['budget', 'cassette']).optional(),
  /** A cost limit is set and a source turned the proxy off: the limit is checked as spend is reported. */
  offWithBudget: z.boolean().optional(),
  /** The address the proxy binds; beyond loopback every request needs a credential. */
  host: z.string().min(1),
  providerBaseUrl: z.string(),
  middleware: z.array(MiddlewareSpecSchema),
  doubleMaxTokens: z.boolean(),
  idleTimeoutMs: z.number().int().nonnegative(),
  maxBodyBytes: z.number().int().positive(),
  /** Request bytes held across all exchanges at once; never below maxBodyBytes. */
  maxInFlightBytes: z.number().int().positive(),
  /** LoggingMiddleware also logs a preview of non-Messages bodies (prompt text: debugging only). */
  logBodies: z.boolean(),
});

export type ProxyConfig = z.infer<typeof ProxyConfigSchema>;

export type ProxyConfigSources = {
  /** Parsed command line: `--proxy` (true; false for a `--no-proxy`), `--provider-base-url`, `--proxy-host`. */
  cli: { proxy?: boolean; providerBaseUrl?: string; proxyHost?: string };
  env: NodeJS.ProcessEnv;
  /** The parsed config file (any other keys are ignored). */
  file: Record<string, unknown>;
  /** The run has a cost limit: with no source saying on or off, the proxy is on to hold it. */
  costLimited?: boolean;
  /** The run records or replays a cassette: the proxy is on, and a source that says off is refused. */
  cassette?: 'record' | 'replay';
};

export type ProxyConfigError = { code: 'PROXY_CONFIG_INVALID'; message: string };
export type ProxyConfigResult = Result<ProxyConfig, ProxyConfigError>;

const ENV_WITHOUT_PROXY = 'SERVICE_RUNTIME_WITHOUT_PROXY';
const ENV_PROVIDER_BASE_URL = 'SERVICE_RUNTIME_PROVIDER_BASE_URL';
/** The variable Claude Code and the Anthropic SDK read; ours (above) wins over it. */
const ENV_ANTHROPIC_BASE_URL = 'ANTHROPIC_BASE_URL';
// A Map, not an object literal: `toString` or `constructor` must not read as a value.
const ENV_BOOLEANS = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

function invalid(message: string): ProxyConfigResult {
  return { ok: false, error: { code: 'PROXY_CONFIG_INVALID', message } };
}

/** An environment variable's value; empty counts as unset, as shells make it easy to set one empty. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

/** Where the server's provider came from, as messages name it. */
export type ProviderBaseUrlSource =
  | '--provider-base-url'
  | typeof ENV_PROVIDER_BASE_URL
  | typeof ENV_ANTHROPIC_BASE_URL
  | 'config file key providerBaseUrl'
  | 'default';

export type ProviderBaseUrlResult =
  | { ok: true; value: string; source: ProviderBaseUrlSource }
  | { ok: false; message: string };

/**
 * The server's provider, the one resolver of `ribosome run` and `ribosome doctor` (pure):
 * `--provider-base-url` > SERVICE_RUNTIME_PROVIDER_BASE_URL > ANTHROPIC_BASE_URL > the config file's
 * `providerBaseUrl` > https://api.anthropic.com. Every source given is checked, even one a higher
 * source overrides; a message never echoes a URL's credentials or query.
 */
export function resolveProviderBaseUrl(sources: {
  cli: { providerBaseUrl?: string | undefined };
  env: NodeJS.ProcessEnv;
  file: { providerBaseUrl?: string | undefined };
}): ProviderBaseUrlResult {
  const urls: Array<[source: ProviderBaseUrlSource, value: string | undefined]> = [
    ['--provider-base-url', sources.cli.providerBaseUrl],
    [ENV_PROVIDER_BASE_URL, envValue(sources.env, ENV_PROVIDER_BASE_URL)],
    [ENV_ANTHROPIC_BASE_URL, envValue(sources.env, ENV_ANTHROPIC_BASE_URL)],
    ['config file key providerBaseUrl', sources.file.providerBaseUrl],
  ];
  for (const [source, value] of urls) {
    if (value === undefined) continue;
    const target = parseTarget(value);
    if (!target.ok)
      return { ok: false, message: `${sourceName(source)} must be an http(s) base URL: ${target.message}.` };
  }
  for (const [source, value] of urls) if (value !== undefined) return { ok: true, value, source };
  return { ok: true, value: DEFAULT_PROVIDER_BASE_URL, source: 'default' };
}

/** A source at the start of a sentence. */
const sourceName = (source: ProviderBaseUrlSource): string =>
  source === 'config file key providerBaseUrl' ? 'Config file key providerBaseUrl' : source;

/**
 * Resolves the proxy settings, command line > environment > config file > default (pure).
 * Every source is checked, even one a higher source overrides: a bad value is a mistake to report.
 */
export function resolveProxyConfig(sources: ProxyConfigSources): ProxyConfigResult {
  const file = ProxyFileKeys.safeParse(sources.file);
  if (!file.success) {
    const issue = file.error.issues[0];
    const key = issue?.path.join('.') ?? '?';
    return invalid(`Config file key ${key} is invalid: ${issue?.message ?? 'unexpected value'}.`);
  }

  const envWithoutProxy = envValue(sources.env, ENV_WITHOUT_PROXY);
  const envWithoutProxyFlag =
    envWithoutProxy === undefined ? undefined : ENV_BOOLEANS.get(envWithoutProxy.toLowerCase());
  if (envWithoutProxy !== undefined && envWithoutProxyFlag === undefined) {
    return invalid(`${ENV_WITHOUT_PROXY} must be "true" or "false", got ${JSON.stringify(envWithoutProxy)}.`);
  }

  const provider = resolveProviderBaseUrl({
    cli: sources.cli,
    env: sources.env,
    file: { providerBaseUrl: file.data.providerBaseUrl },
  });
  if (!provider.ok) return invalid(provider.message);

  if (sources.cli.proxyHost !== undefined && sources.cli.proxyHost.trim() === '') {
    return invalid('--proxy-host must be an address such as 127.0.0.1 or 0.0.0.0, got an empty one.');
  }
  const conflict = proxyKeyConflicts(file.data)[0];
  if (conflict) return invalid(`Config file key ${conflict.message}`);
  const maxBodyBytes = file.data.proxyMaxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxInFlightBytes =
    file.data.proxyMaxInFlightBytes ?? Math.max(DEFAULT_MAX_IN_FLIGHT_BYTES, maxBodyBytes);

  const said =
    sources.cli.proxy !== undefined ? !sources.cli.proxy : (envWithoutProxyFlag ?? file.data.withoutProxy);
  if (said === true && sources.cassette) {
    const what = sources.cassette === 'record' ? 'A recording (--record)' : 'A replay';
    return invalid(
      `${what} needs the LLM proxy, which every request crosses; it is turned off (--no-proxy, ${ENV_WITHOUT_PROXY} or withoutProxy): leave that out.`,
    );
  }
  const withoutProxy = said ?? !(sources.costLimited || sources.cassette);
  const enabledFor = sources.cassette ? 'cassette' : sources.costLimited ? 'budget' : undefined;
  return {
    ok: true,
    value: {
      enabled: !withoutProxy,
      ...(said === undefined && enabledFor ? { enabledFor } : {}),
      ...(said === true && sources.costLimited ? { offWithBudget: true } : {}),
      host: sources.cli.proxyHost ?? file.data.proxyHost ?? DEFAULT_PROXY_HOST,
      providerBaseUrl: provider.value,
      middleware: file.data.proxyMiddleware ?? [],
      doubleMaxTokens: file.data.proxyDoubleMaxTokens ?? false,
      idleTimeoutMs: file.data.proxyIdleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      maxBodyBytes,
      maxInFlightBytes,
      logBodies: file.data.proxyLogBodies ?? false,
    },
  };
}
