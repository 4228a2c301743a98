import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AgentAdapter, AgentRun, AgentStart } from '../agent-adapter.ts';
import { cliBinary, missingCliHint } from '../cli-binary.ts';
import { settleOnExit, writeSecretFile } from '../mcp/secret-file.ts';
import { providerEnv, withAgentKey } from '../provider-env.ts';
import { resumeChain } from '../resume-chain.ts';
import { sandboxWith, userConfigDirs } from '../sandbox-homes.ts';
import { notStarted, spawnAgent } from '../spawn-agent.ts';
import {
  INSTALLED_MARKERS,
  OPENCODE,
  opencodeArgs,
  opencodeConfig,
  opencodeDirs,
  opencodeEnv,
  opencodeModelId,
  TOOL_START_PLUGIN,
} from './opencode-cli.ts';
import { opencodeMcp } from './opencode-mcp.ts';
import { opencodeTranslator } from './opencode-translator.ts';

/**
 * opencode (`opencode run --format json`), speaking Anthropic Messages to the codon's provider. It
 * takes its prompt once and exits, so a message sent to it runs a follow-up turn by resume in the
 * same session (src/agents/resume-chain.ts). It reports a cost (from its own price table).
 */
/** How long opencode, given up on (a usage limit), may take to end before it is killed. */
const GIVE_UP_GRACE_MS = 2_000;

export class OpencodeAdapter implements AgentAdapter {
  readonly kind = 'opencode';
  readonly #config: 'isolated' | 'user';

  /** `config` user: the user's own HOME, opencode config and login; isolated: our own, per execution. */
  constructor(options: { config?: 'isolated' | 'user' } = {}) {
    this.#config = options.config ?? 'isolated';
  }

  start(options: AgentStart): AgentRun {
    const isolated = this.#config === 'isolated';
    const dirs = opencodeDirs(join(options.stateDir, 'opencode-home'));
    let config: Record<string, unknown>;
    try {
      config = this.#prepare(options, dirs, isolated);
    } catch (error) {
      return notStarted(`could not write opencode's configuration: ${String(error)}`, options.mark);
    }
    // The MCP servers' secrets are in a config file while each process starts, and gone once it ends:
    // its own config file (isolated), or a file of their own read over the user's config (user).
    const servers = options.mcpServers ?? [];
    const mcpFile = isolated ? dirs.configFile : join(dirs.home, `mcp-${options.mark}.json`);
    const withMcp =
      servers.length > 0
        ? isolated
          ? { ...config, mcp: opencodeMcp(servers) }
          : { mcp: opencodeMcp(servers) }
        : undefined;
    const own: NodeJS.ProcessEnv = {
      ...providerEnv(options),
      ...opencodeEnv({ dirs, isolated, config }),
      ...(withMcp && !isolated ? { OPENCODE_CONFIG: mcpFile } : {}),
      ...options.env,
      // opencode takes its directory from PWD when set (the server's own, inherited), not its cwd.
      PWD: options.cwd,
    };
    // opencode reads ANTHROPIC_API_KEY (providerEnv put the apiKeyEnv value there) and needs one.
    const env = withAgentKey(own, 'ANTHROPIC_API_KEY', own.ANTHROPIC_API_KEY, options.providerBaseUrl);
    const serverNames = servers.map((server) => server.name);
    const turn = (prompt: string, resume?: { sessionId: string; fork: boolean }) => {
      const write = withMcp ? writeSecretFile(mcpFile, `${JSON.stringify(withMcp, null, 2)}\n`) : undefined;
      // Stopped when the translator gives up (a retry a usage limit away).
      let stop: AgentRun['stop'] | undefined;
      const run = spawnAgent({
        command: cliBinary(OPENCODE),
        args: opencodeArgs({ model: options.model, ...(resume ? { resume } : {}) }),
        cwd: options.cwd,
        env,
        // On stdin, not as an argument: opencode quotes an argument holding spaces.
        stdin: prompt,
        input: 'text',
        mark: options.mark,
        translator: opencodeTranslator({
          model: opencodeModelId(options.model),
          mcpServers: serverNames,
          onGiveUp: () => void stop?.(GIVE_UP_GRACE_MS),
        }),
        ...sandboxWith(options.sandbox, {
          writable: [dirs.home, ...(isolated ? [] : userConfigDirs('opencode'))],
        }),
      });
      stop = (graceMs) => run.stop(graceMs);
      if (write !== undefined)
        settleOnExit(
          run.exited,
          mcpFile,
          write,
          isolated ? `${JSON.stringify(config, null, 2)}\n` : undefined,
        );
      if (run.pid !== -1) return run;
      // Not started: when the binary is missing, say how to get it.
      const why = run.exited.then(() => missingCliHint(OPENCODE, run.startFailure ?? 'not started'));
      return notStarted(why, options.mark);
    };
    // A continuation forks the session it resumes (as Claude Code's --fork-session): a failed attempt
    // leaves it as it was. A follow-up turn for a message goes on in the codon's own session.
    const first = turn(
      options.prompt,
      options.resumeSessionId ? { sessionId: options.resumeSessionId, fork: true } : undefined,
    );
    return resumeChain(first, (text, sessionId) =>
      turn(text, sessionId ? { sessionId, fork: false } : undefined),
    );
  }

  /**
   * Writes the home (isolated), the config file, the appended system prompt and the tool-start plugin
   * (isolated only); returns the config.
   */
  #prepare(options: AgentStart, dirs: ReturnType<typeof opencodeDirs>, isolated: boolean) {
    mkdirSync(dirs.home, { recursive: true });
    if (options.appendSystemPrompt) writeFileSync(dirs.instructionsFile, options.appendSystemPrompt);
    // Isolated only: with any plugin, opencode waits for `@opencode-ai/plugin` to be installed into each
    // config directory lacking it (64 MB from the npm registry into the user's ~/.config/opencode).
    // The isolated home fakes that install; the user's is left alone, so their tool calls show as they end.
    if (isolated) writeFileSync(dirs.pluginFile, TOOL_START_PLUGIN);
    const config = opencodeConfig({
      providerBaseUrl: options.providerBaseUrl,
      model: options.model,
      isolated,
      ...(isolated ? { pluginFile: dirs.pluginFile } : {}),
      ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
      ...(options.appendSystemPrompt ? { instructionsFile: dirs.instructionsFile } : {}),
      ...(options.dataDir ? { readOnlyDirs: readOnlyDirs(options.dataDir) } : {}),
    });
    if (isolated) {
      for (const dir of [dirs.config, dirs.data, dirs.state, dirs.cache]) mkdirSync(dir, { recursive: true });
      const own = join(dirs.config, 'opencode');
      mkdirSync(join(own, INSTALLED_MARKERS.dir), { recursive: true });
      writeFileSync(join(own, INSTALLED_MARKERS.lockFile), INSTALLED_MARKERS.lock);
      writeFileSync(dirs.configFile, `${JSON.stringify(config, null, 2)}\n`);
    }
    return config;
  }
}

/** The data directory's link and where it leads (when it exists), absolute. */
function readOnlyDirs(link: string): string[] {
  const dirs = [resolve(link)];
  try {
    const real = realpathSync(link);
    if (real !== dirs[0]) dirs.push(real);
  } catch {
    // Not there: the link path alone is denied.
  }
  return dirs;
}
