import type { ProcessExit } from '../core/protocol/index.ts';
import type { Usage } from '../llm/schemas.ts';
import type { Agent } from '../plan/primitives.ts';
import type { SandboxLaunch } from '../platform/sandbox/launch.ts';
import type { McpLaunch } from './mcp/mcp-launch.ts';
import type { StreamLine } from './stream-line.ts';

/** What an adapter needs to start an agent on one codon. */
export type AgentStart = {
  prompt: string;
  model: string;
  /** The agent root: the agent's working directory. */
  cwd: string;
  /** The data directory's link in the agent root: for the agent to read, never to write. */
  dataDir?: string;
  /** Extra environment of the codon (plan `env`), on top of the provider settings. */
  env: Record<string, string>;
  /** Base URL of the LLM API the agent talks to (the proxy when it is on). */
  providerBaseUrl: string;
  /** The provider's own key variable (plan `provider.apiKeyEnv`): its value alone authenticates. */
  apiKeyEnv?: string;
  /** Every provider key variable of the plan (each apiKeyEnv): none reaches the agent's environment. */
  keyVars?: readonly string[];
  /** The agent session to continue (continue-previous), as the agent reported it. */
  resumeSessionId?: string;
  /** Replaces the agent's own system prompt (plan or codon `systemPrompt`). */
  systemPrompt?: string;
  /** Added after the agent's system prompt (plan or codon `appendSystemPrompt`). */
  appendSystemPrompt?: string;
  /** Where the engine keeps per-execution agent files (sessions, temp, config). */
  stateDir: string;
  /** Unique to this run: its processes carry it in their environment (spawn-agent AGENT_MARK). */
  mark: string;
  /**
   * MCP servers for this run (docs/mcp.md), secrets read: each adapter gives them to its agent its own
   * way (a config in the agent's home in the execution). Absent or empty: none.
   */
  mcpServers?: readonly McpLaunch[];
  /**
   * Run the agent in this sandbox (docs/agents.md#the-sandbox), the adapter adding its own homes to
   * `writable`; absent: unconfined.
   */
  sandbox?: SandboxLaunch;
};

/** A running agent process. */
export type AgentRun = {
  pid: number;
  /**
   * Parsed stream-json lines as they arrive; ends when stdout closes. Read them to the end: the
   * agent's stdin is closed as its `result` line is read (stream-json input), and only then does it exit.
   */
  lines: AsyncIterable<StreamLine>;
  /** Lines that were not stream-json (kept for the log). */
  onStderr(listener: (text: string) => void): void;
  /** What the engine tells the journal about the run's input (messages the agent did not take up). */
  onNotice(listener: (message: string) => void): void;
  exited: Promise<ProcessExit>;
  /** Why the agent could not be started (EMFILE, a missing binary); read once `exited` resolved. */
  readonly startFailure: string | undefined;
  /**
   * Ends the agent's whole process tree and every process carrying its mark: SIGTERM, then SIGKILL
   * after the grace period.
   */
  stop(graceMs: number): Promise<void>;
  /**
   * Gives the agent `text` as a user message (docs/steering.md): written while a
   * turn runs, it joins the agent's next request; between turns, it starts a new one. False when the
   * agent takes no more input (its stdin closed after a result with nothing left to send, or it exited).
   */
  send(text: string): boolean;
  /**
   * The messages sent that the agent has not taken up yet (written and not printed back, or queued
   * for its next turn): how many, and their UTF-8 bytes. Absent: none are ever waiting.
   */
  readonly backlog?: MessageBacklog;
  /**
   * True from the agent's input until its `result` line, and again once it takes up a message it was
   * sent meanwhile; false between turns and once its input has ended.
   */
  readonly inTurn: boolean;
};

/** Messages waiting for an agent to take them up: how many, and their UTF-8 bytes. */
export type MessageBacklog = { count: number; bytes: number };

/** Tokens one model spent, in the engine's (Anthropic's) terms, for the engine to price. */
export type ModelSpend = { model: string; usage: Usage };

export interface AgentAdapter {
  readonly kind: Agent;
  /** [true] False when the agent reports tokens but no cost: the engine prices them (token.usage costEstimated). */
  readonly reportsCost?: boolean;
  start(options: AgentStart): AgentRun;
  /**
   * What session `sessionId` (as the agent reported it; `stateDir` as its runs were given) records as
   * spent so far, every run of it counted, and what it continued (a fork's parent) too; undefined when
   * it has no record. For an agent that reports tokens only at a turn's end (Codex, Gemini CLI): a
   * restarted server asks it what the codon its predecessor left running spent
   * (docs/checkpoints.md#after-a-crash).
   */
  spentIn?(sessionId: string, stateDir: string): ModelSpend[] | undefined;
}

/** The adapter of each agent a server can run; a codon whose agent has none fails to start, saying so. */
export type AgentAdapters = Partial<Record<Agent, AgentAdapter>>;

/** Whose configuration (home, settings, login) an agent CLI runs with: our own per execution, or the user's. */
export type AgentConfig = 'isolated' | 'user';
