import type { Logger } from 'pino';
import type { AgentAdapters } from '../agents/agent-adapter.ts';
import type { EngineState } from '../execution/state/reducer.ts';
import type { ProviderTarget } from '../llm/providers/providers.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { EffectiveSandbox } from '../plan/sandbox-resolve.ts';
import type { CodonHooks } from './codon-hooks.ts';
import type { CodonSteps } from './codon-steps.ts';
import type { MessageQueueLimits } from './message-queue.ts';
import type { Recorder } from './recorder.ts';

export type LifecycleOptions = {
  state: () => EngineState;
  recorder: Recorder;
  steps: CodonSteps;
  hooks: CodonHooks;
  logger: Logger;
  adapters: AgentAdapters;
  agentRoot: string;
  /** The data directory's link in the agent root, for the agent and `{{dataDir}}`. */
  dataDir?: string;
  agentStateDir: string;
  executionDir: string;
  rigArchive: string;
  /** A codon's sandbox when its agent runs confined (docs/agents.md#the-sandbox); absent or undefined: unconfined. */
  sandbox?: (codon: RuntimeCodon) => EffectiveSandbox | undefined;
  defaultModel: string;
  /** Where the codon's agent calls (the proxy's route when it is on) and its key variable. */
  provider: (codon: RuntimeCodon) => ProviderTarget;
  stopGraceMs: number;
  snapshotIntervalMs: number;
  maxResultChars: number;
  /** What may wait for the agent, sent and not taken up (default DEFAULT_MESSAGE_QUEUE). */
  messageQueue?: MessageQueueLimits;
  /** Publishes a state.snapshot. */
  snapshot: () => Promise<unknown>;
  /**
   * What the proxy saw the codon's answers cost that its agent, now ended, never reported: counted
   * in its cost at its end (docs/unattended.md#budgets).
   */
  unreportedSpend?: (codonId: string) => number;
};

/** Which attempt of a codon this start is (automatic retries), shown on codon.started. */
export type AttemptInfo = { attempt: number; maxAttempts: number; model: string };
