import { mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AgentAdapter, AgentRun, AgentStart } from '../agent-adapter.ts';
import { missingCliHint } from '../cli-binary.ts';
import { settleOnExit, writeSecretFile } from '../mcp/secret-file.ts';
import { providerEnv } from '../provider-env.ts';
import { sandboxWith, userConfigDirs } from '../sandbox-homes.ts';
import { notStarted, spawnAgent } from '../spawn-agent.ts';
import { CLAUDE_CODE, claudeBinary } from './claude-binary.ts';
import { claudeMcpConfig } from './claude-mcp.ts';
import { redactMcpLogs } from './claude-mcp-logs.ts';
import { claudeSettings } from './claude-settings.ts';
import { claudeTranslator } from './claude-usage-limit.ts';
import { claudeVersion } from './claude-version.ts';

/** The real Claude Code CLI, headless: stream-json on stdin (the prompt, then messages) and on stdout. */
export class ClaudeCodeAdapter implements AgentAdapter {
  readonly kind = 'claude-code';
  readonly #config: 'isolated' | 'user';

  /** `config` user: the user's own HOME and ~/.claude (their login and settings); isolated: our own. */
  constructor(options: { config?: 'isolated' | 'user' } = {}) {
    this.#config = options.config ?? 'isolated';
  }

  start(options: AgentStart): AgentRun {
    const home = join(options.stateDir, 'claude-home');
    const tmp = join(options.stateDir, 'claude-tmp');
    mkdirSync(home, { recursive: true });
    mkdirSync(tmp, { recursive: true });
    // Stream-json input keeps stdin open for messages to the running agent (AgentRun.send); each is
    // printed back as the agent takes it up (--replay-user-messages), so what is pending is known.
    const args = [
      '-p',
      '--input-format',
      'stream-json',
      '--replay-user-messages',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      options.model,
      '--permission-mode',
      'bypassPermissions',
    ];
    // Forked: the resumed session stays as it was, so an attempt that failed (and was rolled back)
    // leaves no turns behind for a retry, a redo or a later codon that continues the same session.
    if (options.systemPrompt) args.push('--system-prompt', options.systemPrompt);
    if (options.appendSystemPrompt) args.push('--append-system-prompt', options.appendSystemPrompt);
    if (options.resumeSessionId) args.push('--resume', options.resumeSessionId, '--fork-session');
    // The data directory is read-only for the agent: its file tools are denied it (Bash is not).
    const command = claudeBinary();
    const dirs = options.dataDir ? readOnlyDirs(options.dataDir) : [];
    // Its version names the tools it has (claudeVersion reads it once, without a process when it can).
    const settings = claudeSettings(dirs, dirs.length > 0 ? claudeVersion(command) : undefined);
    if (settings) args.push('--settings', settings);
    // The codon's MCP servers, and no other (strict): their secrets in a file of its home while it starts.
    const servers = options.mcpServers ?? [];
    const mcpFile = join(home, `mcp-${options.mark}.json`);
    const mcpWrite =
      servers.length > 0 ? writeSecretFile(mcpFile, claudeMcpConfig(servers, options.cwd)) : undefined;
    if (mcpWrite !== undefined) args.push('--mcp-config', mcpFile, '--strict-mcp-config');
    // Its MCP logs hold a remote server's headers: in a cache of our own, redacted once it ends.
    const cache = this.#config === 'isolated' ? join(home, '.cache') : join(options.stateDir, 'claude-cache');
    if (mcpWrite !== undefined) mkdirSync(cache, { recursive: true });
    const run = spawnAgent({
      command,
      args,
      cwd: options.cwd,
      env: {
        ...providerEnv(options),
        // Isolated: its own config and home inside the execution, so runs never touch the user's
        // ~/.claude. User: the user's own, so their `claude login` authenticates it.
        ...(this.#config === 'isolated' ? { HOME: home, CLAUDE_CONFIG_DIR: home } : {}),
        CLAUDE_CODE_TMPDIR: tmp,
        ...(mcpWrite !== undefined ? { XDG_CACHE_HOME: cache, ...MCP_WAIT } : {}),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        // Needed for bypassPermissions when running as root.
        IS_SANDBOX: '1',
        ...options.env,
      },
      stdin: options.prompt,
      input: 'stream-json',
      // Its own result line, with our usage_limit when its words report one.
      translator: claudeTranslator(),
      mark: options.mark,
      ...sandboxWith(options.sandbox, {
        writable: [
          home,
          tmp,
          ...(this.#config === 'user' ? userConfigDirs('claude-code') : []),
          ...(mcpWrite !== undefined && this.#config === 'user' ? [cache] : []),
        ],
      }),
    });
    if (mcpWrite !== undefined) {
      settleOnExit(run.exited, mcpFile, mcpWrite);
      void run.exited
        .then(() => redactMcpLogs(cache, servers))
        .catch(() => {
          // The execution's directory went first: nothing left to redact.
        });
    }
    if (run.pid !== -1) return run;
    // Not started: when the binary is missing, say how to get it (it is an optional peer dependency).
    const why = run.exited.then(() => missingCliHint(CLAUDE_CODE, run.startFailure ?? 'not started'));
    return notStarted(why, options.mark);
  }
}

/**
 * Headless, Claude Code starts its first turn without waiting for its MCP servers (they connect in the
 * background, 5 s at most are waited for): a server slower to start (`ribosome mcp` on a loaded machine,
 * an `npx` one) is missing from the turn that needs it. Told to block, it waits as long as a server may
 * take to start (its MCP_TIMEOUT, 30 s), unless the user set these.
 */
const MCP_WAIT: Record<string, string> = {
  MCP_CONNECT_TIMEOUT_MS: process.env.MCP_CONNECT_TIMEOUT_MS ?? process.env.MCP_TIMEOUT ?? '30000',
  MCP_CONNECTION_NONBLOCKING: process.env.MCP_CONNECTION_NONBLOCKING ?? 'false',
};

/** The data directory's link and where it leads (when it exists), absolute. */
function readOnlyDirs(link: string): string[] {
  const dirs = [resolve(link)];
  try {
    dirs.push(realpathSync(link));
  } catch {
    // Not there: the link path alone is denied.
  }
  return dirs;
}
