import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentProviderUrl } from '../../llm/providers/providers.ts';
import type { AgentAdapter, AgentRun, AgentStart, ModelSpend } from '../agent-adapter.ts';
import { cliBinary, missingCliHint } from '../cli-binary.ts';
import type { McpLaunch } from '../mcp/mcp-launch.ts';
import { settleOnExit, writeSecretFile } from '../mcp/secret-file.ts';
import { providerEnv } from '../provider-env.ts';
import { resumeChain } from '../resume-chain.ts';
import { sandboxWith } from '../sandbox-homes.ts';
import { notStarted, spawnAgent } from '../spawn-agent.ts';
import {
  CODEX,
  type CodexTurn,
  codexArgs,
  codexEnv,
  codexHome,
  codexModel,
  ISOLATED_CONFIG,
  maxRetries,
} from './codex-cli.ts';
import { codexMcpGrace, codexMcpOverrides, codexMcpTables } from './codex-mcp.ts';
import { RolloutRecord, recordedCallIds } from './codex-record.ts';
import { sessionSpend, sessionTotals } from './codex-session.ts';
import { CodexTranslator } from './codex-translator.ts';

/** How long a run given up on (its provider unreachable) has to end after SIGTERM. */
const GIVE_UP_GRACE_MS = 2_000;

/**
 * The Codex CLI, headless: `codex exec --json` with the prompt as its argument and stdin closed. It takes
 * no input while it works, so a message sent to it becomes a follow-up turn by `codex exec resume`
 * once its turn ends (resumeChain). A codon that continues an earlier session forks it (`codex exec
 * fork`), as Claude Code's --fork-session: a failed attempt leaves the earlier session as it was.
 */
export class CodexAdapter implements AgentAdapter {
  readonly kind = 'codex';
  readonly reportsCost = false;
  readonly #config: 'isolated' | 'user';

  /** `config` user: the user's own CODEX_HOME (their login, AGENTS.md, MCP servers); isolated: our own. */
  constructor(options: { config?: 'isolated' | 'user' } = {}) {
    this.#config = options.config ?? 'isolated';
  }

  start(options: AgentStart): AgentRun {
    const home = codexHome(options.stateDir, this.#config);
    if (this.#config === 'isolated') {
      mkdirSync(home, { recursive: true });
      writeFileSync(join(home, 'config.toml'), ISOLATED_CONFIG);
    }
    const mcp = this.#mcp(options.mcpServers ?? []);
    if (!mcp.ok) return notStarted(mcp.message, options.mark);
    const base: Omit<CodexTurn, 'prompt' | 'session'> = {
      model: codexModel(options.model),
      // The server's default provider is Anthropic's: Codex calls OpenAI's instead.
      providerBaseUrl: agentProviderUrl('codex', options.providerBaseUrl),
      mark: options.mark,
      maxRetries: maxRetries(options.env),
      ...(options.systemPrompt ? { instructionsFile: instructionsFile(options) } : {}),
      ...(options.appendSystemPrompt ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
      settings: mcp.settings,
    };
    // Each process of the chain numbered: Codex's item ids start again in each (CodexTranslator `run`).
    let runs = 0;
    const turn = (prompt: string, session?: CodexTurn['session']) =>
      this.#spawn(options, home, { ...base, prompt, ...(session ? { session } : {}) }, ++runs, mcp);
    const first = turn(
      options.prompt,
      options.resumeSessionId ? { id: options.resumeSessionId, how: 'fork' } : undefined,
    );
    if (first.pid === -1) return first;
    return resumeChain(first, (text, sessionId) =>
      sessionId
        ? turn(text, { id: sessionId, how: 'resume' })
        : notStarted('Codex reported no session to resume for the message', options.mark),
    );
  }

  /** The session's totals from its rollout file: the last response's, though its turn never ended. */
  spentIn(sessionId: string, stateDir: string): ModelSpend[] | undefined {
    return sessionSpend(codexHome(stateDir, this.#config), sessionId);
  }

  /**
   * The codon's MCP servers for Codex (codex-mcp.ts): isolated, tables for its config.toml (secrets
   * in the file); user, `-c` settings and the secrets for its environment.
   */
  #mcp(servers: readonly McpLaunch[]): CodexMcp | { ok: false; message: string } {
    if (servers.length === 0) return { ok: true, settings: [], env: {} };
    if (this.#config === 'isolated')
      return { ok: true, settings: codexMcpGrace(servers), env: {}, tables: codexMcpTables(servers) };
    return codexMcpOverrides(servers);
  }

  #spawn(options: AgentStart, home: string, turn: CodexTurn, runNumber: number, mcp: CodexMcp): AgentRun {
    let run: AgentRun | undefined;
    // Its servers' secrets are in config.toml while this process starts, and gone once it ends.
    const config = join(home, 'config.toml');
    const write = mcp.tables ? writeSecretFile(config, `${ISOLATED_CONFIG}\n${mcp.tables}`) : undefined;
    // A resumed or forked session's rollout holds the earlier runs' calls: their failures were theirs.
    const failures = new RolloutRecord(
      home,
      turn.session ? recordedCallIds(home, turn.session.id) : undefined,
    );
    const translator = new CodexTranslator({
      model: turn.model,
      run: runNumber,
      root: options.cwd,
      // A resumed or forked session's usage includes the earlier runs': only this run's is counted.
      ...(turn.session ? withTotals(sessionTotals(home, turn.session.id)) : {}),
      onGiveUp: () => void run?.stop(GIVE_UP_GRACE_MS),
      readTotals: (sessionId) => sessionTotals(home, sessionId),
      readFailures: (sessionId) => failures.read(sessionId),
      recordedWaits: () => failures.waits(),
    });
    run = spawnAgent({
      command: cliBinary(CODEX),
      args: codexArgs(turn),
      cwd: options.cwd,
      env: {
        ...codexEnv(providerEnv(options), options),
        // Isolated: its own home and configuration inside the execution, never the user's ~/.codex.
        ...(this.#config === 'isolated' ? { HOME: home, CODEX_HOME: home } : {}),
        ...options.env,
        // agentConfig user: the MCP servers' secrets, by the names its settings give them.
        ...mcp.env,
      },
      stdin: '',
      input: 'text',
      mark: options.mark,
      translator,
      // Its home is the user's CODEX_HOME under agentConfig user (codexHome).
      ...sandboxWith(options.sandbox, {
        writable: [home],
        ...(turn.instructionsFile ? { readOnly: [turn.instructionsFile] } : {}),
      }),
    });
    if (write !== undefined) settleOnExit(run.exited, config, write, ISOLATED_CONFIG);
    if (run.pid !== -1) return run;
    // Not started: when the binary is missing, say how to get it.
    const failed = run;
    const why = failed.exited.then(() => missingCliHint(CODEX, failed.startFailure ?? 'not started'));
    return notStarted(why, options.mark);
  }
}

/** The codon's MCP servers as one Codex process takes them. */
type CodexMcp = { ok: true; settings: string[]; env: Record<string, string>; tables?: string };

const withTotals = (before: ReturnType<typeof sessionTotals>) => (before ? { before } : {});

/** The plan's systemPrompt in a file of this run's own (Codex reads its instructions from a file). */
function instructionsFile(options: AgentStart): string {
  const file = join(options.stateDir, `codex-instructions-${options.mark}.md`);
  mkdirSync(options.stateDir, { recursive: true });
  writeFileSync(file, options.systemPrompt ?? '');
  return file;
}
