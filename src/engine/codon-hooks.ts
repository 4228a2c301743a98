import type { FailureReason } from '../core/protocol/index.ts';
import type { RuntimeCodon } from '../plan/index.ts';

/**
 * Work that runs beside a codon's agent (sentinels). The engine calls `beforeAgent` after
 * codon.started and before the agent starts: a FailureReason fails the codon without running the
 * agent. `afterAgent` runs once the agent has exited, before codon.completed (bounded waits only).
 */
export interface CodonHooks {
  beforeAgent(codon: RuntimeCodon, runId: string): Promise<FailureReason | undefined>;
  afterAgent(codon: RuntimeCodon, runId: string): Promise<void>;
  /** The server is stopping: end everything now. */
  shutdown(): Promise<void>;
}

export const noHooks: CodonHooks = {
  beforeAgent: async () => undefined,
  afterAgent: async () => {},
  shutdown: async () => {},
};
