import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ProcessExit } from '../../core/protocol/index.ts';
import { agentProviderUrl } from '../../llm/providers/providers.ts';
import type { AgentAdapter, AgentConfig, AgentRun, AgentStart, ModelSpend } from '../agent-adapter.ts';
import { wrapRun } from '../agent-run.ts';
import { cliBinary, missingCliHint } from '../cli-binary.ts';
import { settleOnExit, writeSecretFile } from '../mcp/secret-file.ts';
import { resumeChain } from '../resume-chain.ts';
import { sandboxWith, userConfigDirs } from '../sandbox-homes.ts';
import { notStarted, spawnAgent } from '../spawn-agent.ts';
import type { StreamLine } from '../stream-line.ts';
import {
  dataDirPolicy,
  GEMINI_CLI,
  geminiArgs,
  geminiEnv,
  geminiSettings,
  maxAttemptsOf,
  sessionFileOf,
} from './gemini-cli.ts';
import { geminiMcpServers, USER_CONFIG_MCP } from './gemini-mcp.ts';
import { sessionShellEnd, sessionSpend, spendOfFile } from './gemini-session.ts';
import { geminiTranslator, statusOfStderr, usageOf } from './gemini-translator.ts';

/**
 * Gemini CLI, headless: one process per turn (`-p` prompt, stream-json out, stdin closed), its output
 * translated; messages sent to it become follow-up turns by resume (resumeChain). Gemini CLI reports
 * tokens but no cost: the engine prices them.
 */
export class GeminiAdapter implements AgentAdapter {
  readonly kind = 'gemini';
  readonly reportsCost = false;
  readonly #config: AgentConfig;

  /** `config` user: the user's own HOME and ~/.gemini (their auth and settings); isolated: our own. */
  constructor(options: { config?: AgentConfig } = {}) {
    this.#config = options.config ?? 'isolated';
  }

  start(options: AgentStart): AgentRun {
    const isolated = this.#config === 'isolated';
    if (!isolated && options.appendSystemPrompt) {
      return notStarted(
        'Gemini CLI takes appendSystemPrompt only in a configuration of its own (agentConfig: isolated), where it becomes the GEMINI.md of its home',
        options.mark,
      );
    }
    const servers = options.mcpServers ?? [];
    if (!isolated && servers.length > 0) return notStarted(USER_CONFIG_MCP, options.mark);
    const home = homeOf(this.#config, options.stateDir);
    const tmp = join(options.stateDir, 'gemini-tmp');
    mkdirSync(tmp, { recursive: true });
    if (isolated) writeHome(home, options.appendSystemPrompt);
    const env: NodeJS.ProcessEnv = {
      // The server's default provider is Anthropic's: Gemini CLI calls Google's instead.
      ...geminiEnv(process.env, {
        ...options,
        providerBaseUrl: agentProviderUrl('gemini', options.providerBaseUrl),
        isolated,
      }),
      ...(isolated ? { HOME: home } : {}),
      // Its error reports (the whole request) go to the temp directory: keep them in the execution.
      TMPDIR: tmp,
      ...(options.systemPrompt
        ? { GEMINI_SYSTEM_MD: systemFile(options.stateDir, options.systemPrompt) }
        : {}),
      ...options.env,
    };
    const dataDir = options.dataDir ? dataDirFiles(options.stateDir, options.dataDir) : undefined;
    const sandbox = sandboxWith(options.sandbox, {
      writable: [tmp, ...(isolated ? [home] : userConfigDirs('gemini'))],
      readOnly: [
        ...(typeof env.GEMINI_SYSTEM_MD === 'string' ? [env.GEMINI_SYSTEM_MD] : []),
        ...(dataDir ? [dataDir.policy] : []),
      ],
    });
    const command = cliBinary(GEMINI_CLI);
    // Its settings hold the MCP servers' secrets while each process starts, and lose them once it ends.
    const settingsFile = join(home, '.gemini', 'settings.json');
    const mcpServers = servers.length > 0 ? geminiMcpServers(servers) : undefined;
    const serverNames = servers.map((server) => server.name);
    const turn = (prompt: string, session: { resume?: string; fork?: string }): AgentRun => {
      // What the session continued has spent already: a run that ends without its result counts the rest.
      const before = session.fork
        ? spendOfFile(session.fork)
        : session.resume
          ? sessionSpend(home, session.resume)
          : undefined;
      const attempts = maxAttemptsOf(process.env);
      const write = mcpServers
        ? writeSecretFile(settingsFile, geminiSettings(attempts, mcpServers))
        : undefined;
      const run = spawnAgent({
        command,
        args: geminiArgs({ prompt, model: options.model, ...session, ...(dataDir ? { dataDir } : {}) }),
        cwd: options.cwd,
        env,
        stdin: '',
        mark: options.mark,
        ...sandbox,
        translator: geminiTranslator({
          ...(before ? { before } : {}),
          mcpServers: serverNames,
          readSpent: (id) => sessionSpend(home, id),
          readShellEnd: (id, toolId) => sessionShellEnd(home, id, toolId),
        }),
      });
      if (write !== undefined) settleOnExit(run.exited, settingsFile, write, geminiSettings(attempts));
      if (run.pid === -1) {
        const why = run.exited.then(() => missingCliHint(GEMINI_CLI, run.startFailure ?? 'not started'));
        return notStarted(why, options.mark);
      }
      return withExitStatus(run);
    };
    // Continuing a session forks it (a new session from a copy of its file), as Claude Code's
    // --fork-session does: the session continued stays as it was for a retry or a later codon.
    const resumed = options.resumeSessionId;
    const fork = resumed ? sessionFileOf(home, resumed) : undefined;
    const first = turn(options.prompt, fork ? { fork } : resumed ? { resume: resumed } : {});
    if (first.pid === -1) return first;
    // A follow-up turn of this codon continues its own session in place.
    return resumeChain(first, (text, sessionId) => turn(text, sessionId ? { resume: sessionId } : {}));
  }

  /** What the session's file records: each response with its tokens, as it ended. */
  spentIn(sessionId: string, stateDir: string): ModelSpend[] | undefined {
    const spend = sessionSpend(homeOf(this.#config, stateDir), sessionId);
    return spend
      ? Object.entries(spend).map(([model, stats]) => ({ model, usage: usageOf(stats) }))
      : undefined;
  }
}

/** The HOME Gemini CLI runs with: its own in the execution (isolated), else the user's. */
function homeOf(config: AgentConfig, stateDir: string): string {
  return config === 'isolated' ? join(stateDir, 'gemini-home') : (process.env.HOME ?? homedir());
}

/** Its own home: settings (auth, retries, nothing sent home) and, when given, the appended system prompt as GEMINI.md. */
function writeHome(home: string, append: string | undefined): void {
  const dir = join(home, '.gemini');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'settings.json'), geminiSettings(maxAttemptsOf(process.env)));
  const memory = join(dir, 'GEMINI.md');
  if (append) writeFileSync(memory, `${append}\n`);
  else rmSync(memory, { force: true });
}

/** The data directory's policy file (its file tools may read it, never write it) and the link's target. */
function dataDirFiles(stateDir: string, link: string): { policy: string; target: string } {
  let target = resolve(link);
  try {
    target = realpathSync(link);
  } catch {
    // Not there: the link's own path stands for it.
  }
  const policy = join(stateDir, 'gemini-data-policy.toml');
  writeFileSync(policy, dataDirPolicy(resolve(link), target));
  return { policy, target };
}

/** The replacing system prompt, as the file GEMINI_SYSTEM_MD names. */
function systemFile(stateDir: string, text: string): string {
  const path = join(stateDir, 'gemini-system.md');
  writeFileSync(path, `${text}\n`);
  return path;
}

/**
 * The HTTP status of the API error that ended a run, from its exit code: Gemini CLI exits with the
 * error's status (modulo 256, so 429 exits 173 and 500 exits 244); its other codes are below 144.
 */
export function exitStatusOf(exit: ProcessExit): number | null {
  return exit.type === 'error' && exit.code >= 144 && exit.code <= 255 ? exit.code + 256 : null;
}

/** How much of the end of Gemini CLI's stderr is read for a status (its error report ends it). */
const STDERR_KEPT = 16_384;

/** Gemini CLI's exit code when it has no auth it can use (its FatalAuthenticationError). */
const AUTH_EXIT = 41;

/**
 * What to do about a run that ended with `exit`, when its code says more than its text: exit 41 is
 * Gemini CLI finding no auth method it can use ("Invalid auth method selected." when its settings
 * name none, as a HOME without ~/.gemini/settings.json under agentConfig user). Undefined otherwise.
 */
export function exitHintOf(exit: ProcessExit): string | undefined {
  if (exit.type !== 'error' || exit.code !== AUTH_EXIT) return undefined;
  return 'Gemini CLI has no auth method it can use: with agentConfig: user it reads ~/.gemini/settings.json, whose security.auth.selectedType must name one ("gemini-api-key" uses GEMINI_API_KEY): set it there, or run gemini once and choose one';
}

/**
 * The run with an error result's API status filled in when its text did not tell (statusOfError): from
 * the exit code, else from what its stderr says (statusOfStderr); and what an exit code asks the user to
 * do (exitHintOf). That result is held until the output ends and the process has exited.
 */
function withExitStatus(run: AgentRun): AgentRun {
  let stderr = '';
  run.onStderr((text) => {
    stderr = (stderr + text).slice(-STDERR_KEPT);
  });
  async function* lines(): AsyncGenerator<StreamLine> {
    let held: (StreamLine & { type: 'result' }) | undefined;
    for await (const line of run.lines) {
      if (line.type === 'result' && line.is_error && line.api_error_status == null) held = line;
      else yield line;
    }
    if (!held) return;
    const exit = await run.exited;
    const hint = exitHintOf(exit);
    yield {
      ...held,
      api_error_status: exitStatusOf(exit) ?? statusOfStderr(stderr),
      // The hint first: a one-line view keeps a failure's start.
      ...(hint ? { result: `${hint}. ${held.result ?? 'Gemini CLI failed'}` } : {}),
    };
  }
  return wrapRun(run, { lines: lines() });
}
