/** How one gate ended (what verify.completed says, and what a failure reports). */
export type GateResult = {
  /** 0-based index in the codon's `verify` list. */
  gate: number;
  gates: number;
  command: string;
  round: number;
  passed: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  timeoutMs: number;
  /** Ended by a stop of the codon. */
  stopped: boolean;
  /** Why the command could not be started. */
  startFailure?: string;
  durationMs: number;
  outputTail: string;
};

/** How the gates of one round ended: all passed, one failed (the rest did not run), or a stop ended them. */
export type GatesOutcome = { kind: 'passed' } | { kind: 'failed'; failed: GateResult } | { kind: 'stopped' };

/** What fails a codon whose gates did not pass: the failing gate, after how many feedback rounds. */
export type VerifyFailure = GateResult & { feedbackRounds: number };
