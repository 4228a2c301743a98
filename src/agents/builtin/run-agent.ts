/**
 * The built-in agent as a whole run: resolve the agent root, open or resume the session, print the
 * init line, run the loop, print the result line. Returns the process exit code (0 success, 1 error).
 */
import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMessagesClient } from '../../llm/messages-client.ts';
import type { MessageParam } from '../../llm/schemas.ts';
import { describeError } from '../../platform/storage/probe.ts';
import type { McpLaunch } from '../mcp/mcp-launch.ts';
import { runAgentLoop } from './agent-loop.ts';
import type { Inbox } from './inbox.ts';
import { type McpServerStatus, type McpToolbox, openMcpToolbox } from './mcp-tools.ts';
import { resultLine } from './result-line.ts';
import { createFileSessionStore, type Session } from './session-store.ts';
import type { StreamJsonLine } from './stream-json.ts';
import { defaultSystemPrompt } from './system-prompt.ts';
import { BUILTIN_TOOLS, runTool } from './tools/index.ts';
import { createUsageTally } from './usage-tally.ts';

export type BuiltinAgentOptions = {
  /** The first turn's input: the prompt (with stream-json input, every message that was there at the start). */
  prompt: string | string[];
  /**
   * Stream-json input after the prompt: messages sent while a turn runs join its next request; after
   * the turn's result, the next message starts another turn; the run ends once input has ended.
   */
  inbox?: Inbox;
  /** Print each input message back as it is taken up (Claude Code's --replay-user-messages). */
  replay?: boolean;
  model: string;
  /** The agent root; tools cannot leave it. */
  cwd: string;
  sessionDir: string;
  /** The data directory (its link in the agent root): Read may read it, Write and Edit refuse it. */
  dataDir?: string;
  /** Session id to continue. */
  resume?: string;
  /** With `resume`: the continued session gets a new id, the resumed one stays as it was (Claude Code's --fork-session). */
  forkSession?: boolean;
  maxTurns: number;
  maxRetries: number;
  maxTokens: number;
  systemPrompt?: string;
  /** Added after the system prompt (the default one, or `systemPrompt`). */
  appendSystemPrompt?: string;
  baseUrl: string;
  apiKey?: string;
  authToken?: string;
  /** `anthropic-beta` values the credential needs (a Claude subscription token's). */
  betas?: string[];
  /** Where the credential came from, for the init line (a name, never the value). */
  credentialSource?: string;
  /**
   * MCP servers whose tools join the built-in ones (docs/mcp.md), connected before the first turn;
   * one that cannot be ends the run at once, naming it.
   */
  mcp?: {
    servers: readonly McpLaunch[];
    /** The agent's environment: a stdio server's starts from it. */
    env: NodeJS.ProcessEnv;
    /** How long a server may take to start and list its tools (MCP_TIMEOUT). */
    connectTimeoutMs: number;
    /** How long one tool call may take (MCP_TOOL_TIMEOUT). */
    toolTimeoutMs: number;
  };
  write(line: StreamJsonLine): void;
  signal: AbortSignal;
};

export async function runBuiltinAgent(options: BuiltinAgentOptions): Promise<number> {
  const started = Date.now();
  // A run that cannot start still ends with a result line, worded as Claude Code words it.
  const fail = (sessionId: string, message: string): number => {
    options.write(
      resultLine({
        subtype: 'error_during_execution',
        isError: true,
        stopReason: null,
        errors: [message],
        sessionId,
        durationMs: Date.now() - started,
      }),
    );
    return 1;
  };

  let root: string;
  try {
    root = await realpath(options.cwd);
  } catch {
    return fail(options.resume ?? randomUUID(), `The agent root ${options.cwd} does not exist`);
  }

  // A data directory that is not there (yet) protects nothing and opens nothing: left out.
  const readOnly = options.dataDir
    ? await realpath(options.dataDir).then(
        (real) => [real],
        () => [],
      )
    : [];

  const store = createFileSessionStore(options.sessionDir);
  let session: Session;
  if (options.resume) {
    const loaded = await store.load(options.resume);
    if (!loaded.ok) return fail(options.resume, loaded.error.message);
    session = { ...loaded.session, model: options.model, cwd: root };
    if (options.forkSession) {
      const at = new Date().toISOString();
      session = { ...session, sessionId: randomUUID(), createdAt: at, updatedAt: at };
    }
  } else {
    const at = new Date().toISOString();
    session = {
      version: 1,
      sessionId: randomUUID(),
      model: options.model,
      cwd: root,
      createdAt: at,
      updatedAt: at,
      messages: [],
    };
  }

  // As Claude Code, each turn begins with an init line.
  let mcpServers: McpServerStatus[] = [];
  let mcpTools: McpToolbox | undefined;
  const init = () =>
    options.write({
      type: 'system',
      subtype: 'init',
      cwd: root,
      session_id: session.sessionId,
      tools: [...BUILTIN_TOOLS.map((tool) => tool.name), ...(mcpTools?.definitions ?? []).map((d) => d.name)],
      mcp_servers: mcpServers,
      model: options.model,
      permissionMode: 'bypassPermissions',
      apiKeySource:
        options.credentialSource ??
        (options.apiKey ? 'ANTHROPIC_API_KEY' : options.authToken ? 'ANTHROPIC_AUTH_TOKEN' : 'none'),
      uuid: randomUUID(),
    });

  const client = createMessagesClient({
    baseUrl: options.baseUrl,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.authToken ? { authToken: options.authToken } : {}),
    ...(options.betas?.length ? { betas: options.betas } : {}),
  });
  const { inbox, mcp } = options;
  if (mcp && mcp.servers.length > 0) {
    const opened = await openMcpToolbox(mcp.servers, { ...mcp, signal: options.signal });
    if (!opened.ok) {
      mcpServers = opened.servers;
      init();
      return fail(session.sessionId, opened.message);
    }
    mcpTools = opened.toolbox;
    mcpServers = opened.toolbox.servers;
  }
  const processTally = createUsageTally();
  let history = session.messages;
  let prompt = options.prompt;
  try {
    for (;;) {
      init();
      const result = await runTurn(prompt);
      if (typeof result === 'number') return result;
      options.write(result);
      // The next turn starts with what was sent after this one's last request; none left and input
      // ended (or the run interrupted): the run is over.
      if (!inbox || options.signal.aborted || !(await inbox.wait(options.signal)))
        return result.is_error ? 1 : 0;
      prompt = inbox.take();
    }
  } finally {
    // No MCP server outlives the run, however it ended.
    await mcpTools?.close();
  }

  /** One turn: the loop until the model stops asking for tools; a number is the exit code of a failure. */
  async function runTurn(input: string | string[]) {
    return runAgentLoop({
      client,
      model: options.model,
      systemPrompt: [options.systemPrompt ?? defaultSystemPrompt(root), options.appendSystemPrompt]
        .filter((part) => part !== undefined)
        .join('\n\n'),
      maxTokens: options.maxTokens,
      maxTurns: options.maxTurns,
      maxRetries: options.maxRetries,
      sessionId: session.sessionId,
      history,
      prompt: input,
      ...(inbox ? { takeMessages: () => inbox.take() } : {}),
      ...(options.replay ? { replay: true } : {}),
      processTally,
      tools: [...BUILTIN_TOOLS.map((tool) => tool.definition), ...(mcpTools?.definitions ?? [])],
      runTool: (name, toolInput, signal) =>
        mcpTools?.run(name, toolInput, signal) ??
        runTool(
          name,
          toolInput,
          { root, readOnly, signal },
          mcpTools?.definitions.map((d) => d.name),
        ),
      emit: options.write,
      saveMessages: (messages: MessageParam[]) => {
        history = messages;
        return store.save({ ...session, messages, updatedAt: new Date().toISOString() });
      },
      signal: options.signal,
      sleep: (ms, signal) => sleep(ms, undefined, { signal }),
    }).catch((error: unknown) =>
      // The session file could not be saved (a full disk): a result line that says so, not a stack.
      fail(session.sessionId, `The agent stopped: ${describeError(error, options.sessionDir)}`),
    );
  }
}
