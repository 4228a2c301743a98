import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentCli } from '../cli-binary.ts';

/**
 * opencode (`opencode-ai` on npm), headless: `opencode run --format json` with the prompt on stdin,
 * its JSON events on stdout. Pure: what to run it with (arguments, environment, config); the adapter
 * writes the files and starts it.
 */
export const OPENCODE: AgentCli = {
  name: 'opencode',
  envVar: 'RIBOSOME_OPENCODE_BIN',
  pkg: 'opencode-ai',
  bin: 'opencode',
};

/** opencode's own directories inside `home` (the isolated configuration): what each XDG variable names. */
export function opencodeDirs(home: string) {
  return {
    home,
    config: join(home, 'config'),
    data: join(home, 'data'),
    state: join(home, 'state'),
    cache: join(home, 'cache'),
    /** The config file Ribosome writes (OPENCODE_CONFIG). */
    configFile: join(home, 'opencode.json'),
    /** The appended system prompt, as an `instructions` file. */
    instructionsFile: join(home, 'append-system-prompt.md'),
    /** The plugin that prints a line as each tool starts (TOOL_START_PLUGIN). */
    pluginFile: join(home, 'ribosome-tool-start.js'),
  };
}
export type OpencodeDirs = ReturnType<typeof opencodeDirs>;

/**
 * opencode installs `@opencode-ai/plugin` from the npm registry into every config directory whose
 * `node_modules` or lock file lacks it, in the background at each start. These files make its
 * own config directory look installed, so nothing is fetched (it has no plugins or tools to need it).
 */
export const INSTALLED_MARKERS = {
  dir: 'node_modules',
  lockFile: 'package-lock.json',
  lock: `${JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } })}\n`,
};

/** The `type` of the line TOOL_START_PLUGIN prints: not one of opencode's own events. */
export const TOOL_START_EVENT = 'ribosome.tool_start';
/** The `type` of the line it prints as opencode schedules a retry of a failed model request. */
export const RETRY_EVENT = 'ribosome.retry';

/**
 * An opencode plugin (its `tool.execute.before` hook) that prints a JSON line on opencode's stdout as
 * each tool starts: `run --format json` prints a tool call only once it has ended, with its result, so
 * a long command would show nothing while it runs and count as silence for stall detection. The line
 * names the session (a subagent's tools have their own), the call and its input. And (its `event` hook)
 * a line as opencode schedules a retry of a failed model request, with when (`next`, epoch ms): `run
 * --format json` prints nothing of retries, and opencode waits whatever a provider's retry-after says
 * (hours, for a usage limit), five times. A local file: nothing is fetched for it.
 */
export const TOOL_START_PLUGIN = `// Written by Ribosome: prints a line on stdout as each tool starts (opencode prints a call once it ended).
export const RibosomeToolStart = async () => ({
  'tool.execute.before': async (input, output) => {
    try {
      const line = {
        type: ${JSON.stringify(TOOL_START_EVENT)},
        timestamp: Date.now(),
        sessionID: input.sessionID,
        callID: input.callID,
        tool: input.tool,
        input: output && typeof output.args === 'object' && output.args !== null ? output.args : {},
      };
      process.stdout.write(JSON.stringify(line) + '\\n');
    } catch {
      // A call not shown until it ends, as without the plugin.
    }
  },
  event: async ({ event }) => {
    try {
      const status = event && event.type === 'session.status' ? event.properties.status : undefined;
      if (!status || status.type !== 'retry') return;
      const line = {
        type: ${JSON.stringify(RETRY_EVENT)},
        timestamp: Date.now(),
        sessionID: event.properties.sessionID,
        attempt: status.attempt,
        message: status.message,
        next: status.next,
      };
      process.stdout.write(JSON.stringify(line) + '\\n');
    } catch {
      // A retry not shown, as without the plugin.
    }
  },
});
`;

/** The model as opencode names it: always the `anthropic` provider, which Ribosome points at the codon's. */
export function opencodeModelId(model: string): string {
  return model.startsWith('anthropic/') ? model.slice('anthropic/'.length) : model;
}

/**
 * The arguments of one `opencode run`. `--title`, even empty (the prompt's start), spares the session
 * title request to the model; `--auto` grants what would be asked (nobody answers), except what the
 * config denies; `--thinking` prints its reasoning; `--session ID --fork` continues a session without changing it (a continuation),
 * `--session ID` alone goes on in it (a follow-up turn of the same codon).
 */
export function opencodeArgs(options: {
  model: string;
  resume?: { sessionId: string; fork: boolean };
}): string[] {
  const args = ['run', '--format', 'json', '--model', `anthropic/${opencodeModelId(options.model)}`];
  args.push('--auto', '--thinking', '--title', '');
  if (options.resume) {
    args.push('--session', options.resume.sessionId);
    if (options.resume.fork) args.push('--fork');
  }
  return args;
}

export type OpencodeConfigOptions = {
  /** The provider's root (`http://127.0.0.1:PORT`, a proxy route); opencode's Anthropic base is `<root>/v1`. */
  providerBaseUrl: string;
  model: string;
  /** Replaces opencode's own system prompt (its `build` agent's prompt). */
  systemPrompt?: string;
  /** The file holding the text added after the system prompt (an `instructions` entry). */
  instructionsFile?: string;
  /** Absolute directories its edit tools are denied: the data directory's link and where it leads. */
  readOnlyDirs?: readonly string[];
  /** `isolated`: only the Anthropic provider is enabled (the one Ribosome points at the codon's). */
  isolated: boolean;
  /** TOOL_START_PLUGIN's file (absolute), loaded as a plugin. */
  pluginFile?: string;
};

/**
 * opencode's config for one run: the Anthropic provider at the codon's endpoint, its key read from
 * ANTHROPIC_API_KEY as opencode starts (the value is never written here), the model (known to opencode or not),
 * and nothing that reaches the network on its own (autoupdate, sharing).
 */
export function opencodeConfig(options: OpencodeConfigOptions): Record<string, unknown> {
  const model = opencodeModelId(options.model);
  const config: Record<string, unknown> = {
    $schema: 'https://opencode.ai/config.json',
    provider: {
      anthropic: {
        options: {
          baseURL: `${options.providerBaseUrl.replace(/\/+$/, '')}/v1`,
          // Isolated: the key of the server's environment. User: theirs too, or their `opencode auth login`.
          ...(options.isolated ? { apiKey: '{env:ANTHROPIC_API_KEY}' } : {}),
        },
        // An entry for the model, so one opencode does not list still runs (priced at 0 by it).
        models: { [model]: {} },
      },
    },
    model: `anthropic/${model}`,
    // Side calls (titles, summaries) go to the codon's model too, not to another one.
    small_model: `anthropic/${model}`,
    autoupdate: false,
    share: 'disabled',
  };
  if (options.isolated) config.enabled_providers = ['anthropic'];
  if (options.systemPrompt) config.agent = { build: { prompt: options.systemPrompt } };
  if (options.instructionsFile) config.instructions = [options.instructionsFile];
  if (options.readOnlyDirs?.length) config.permission = { edit: denyEdits(options.readOnlyDirs) };
  if (options.pluginFile) config.plugin = [pathToFileURL(options.pluginFile).href];
  return config;
}

/**
 * Deny rules for opencode's edit tools (write, edit, patch) on each of `dirs` (absolute). opencode
 * matches a path relative to its worktree (the git root above the agent root, or `/`), so the rules
 * name each directory from every directory above it.
 */
export function denyEdits(dirs: readonly string[]): Record<string, 'deny'> {
  const rules: Record<string, 'deny'> = {};
  for (const dir of dirs) {
    const parts = relative('/', resolve(dir)).split(sep);
    for (let i = 0; i < parts.length; i++) {
      const path = parts.slice(i).join('/');
      rules[path] = 'deny';
      rules[`${path}/*`] = 'deny';
    }
  }
  return rules;
}

/**
 * The environment of one run, over the server's (provider settings included). Isolated: opencode's
 * home, XDG directories and config file are its own, and no `opencode.json` or `.opencode/` of the
 * directories above the agent root is read (OPENCODE_DISABLE_PROJECT_CONFIG). User: the user's own
 * (their login in auth.json, their config), with Ribosome's config given as OPENCODE_CONFIG_CONTENT,
 * which opencode reads last, so the provider and model are the codon's. Either way nothing is fetched
 * in the background (model list, updates, language servers, sharing).
 */
export function opencodeEnv(options: {
  dirs: OpencodeDirs;
  isolated: boolean;
  config: Record<string, unknown>;
}): Record<string, string> {
  const { dirs } = options;
  const quiet = {
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
  };
  if (!options.isolated) return { ...quiet, OPENCODE_CONFIG_CONTENT: JSON.stringify(options.config) };
  return {
    ...quiet,
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.config,
    XDG_DATA_HOME: dirs.data,
    XDG_STATE_HOME: dirs.state,
    XDG_CACHE_HOME: dirs.cache,
    OPENCODE_CONFIG: dirs.configFile,
    OPENCODE_DISABLE_PROJECT_CONFIG: '1',
  };
}
