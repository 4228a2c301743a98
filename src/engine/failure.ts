import type { FailureReason, ProcessExit } from '../protocol/index.ts';
import { verifyFailureMessage } from '../verify/feedback.ts';
import type { VerifyFailure } from '../verify/gate-result.ts';

export type CodonOutcome = {
  exit: ProcessExit;
  /** The agent's final `result` line, if it printed one. */
  result?: { isError: boolean; apiErrorStatus: number | null; message: string };
  timedOut: boolean;
  /** Why the agent could not be started at all (spawn failed: EMFILE, a missing binary). */
  startFailure?: string;
  /** Set when a client stopped the codon (forceStop / skip). */
  stoppedBy?: 'forceStop' | 'skip';
  /** What the client (or the shutdown) gave as the reason for stopping. */
  stopReason?: string;
  /** The agent ended well but a verification gate did not pass (README "Verification gates"). */
  verifyFailure?: VerifyFailure;
};

/**
 * Classifies how a codon ended (spec 2.4 FailureReason). Pure: the same outcome always gives the
 * same reason, so clients can decide on codon.redo from `type` and `retriable`.
 */
export function classifyOutcome(o: CodonOutcome): { success: boolean; failureReason?: FailureReason } {
  if (o.startFailure !== undefined) {
    return {
      success: false,
      failureReason: {
        type: 'unknown',
        retriable: true,
        message: `the agent could not be started: ${o.startFailure}`,
      },
    };
  }
  if (o.timedOut) {
    return {
      success: false,
      failureReason: { type: 'timeout', retriable: true, message: 'the codon ran past its timeoutMs' },
    };
  }
  if (o.stoppedBy) {
    return {
      success: false,
      failureReason: {
        type: 'unknown',
        retriable: true,
        message: stoppedMessage(o.stoppedBy, o.stopReason),
      },
    };
  }
  const status = o.result?.apiErrorStatus ?? null;
  if (status !== null) {
    if (status === 429) {
      return {
        success: false,
        failureReason: { type: 'rate-limit', retriable: true, message: o.result?.message },
      };
    }
    const retriable = status >= 500 || status === 408 || status === 409;
    return { success: false, failureReason: { type: 'api-error', retriable, message: o.result?.message } };
  }
  if (o.result?.isError) {
    return { success: false, failureReason: { type: 'unknown', retriable: true, message: o.result.message } };
  }
  if (o.exit.type !== 'success') {
    const how =
      o.exit.type === 'error' ? `exited with code ${o.exit.code}` : `was killed by ${o.exit.signal}`;
    return {
      success: false,
      failureReason: { type: 'unknown', retriable: true, message: `the agent ${how}` },
    };
  }
  if (!o.result) {
    return {
      success: false,
      failureReason: {
        type: 'unknown',
        retriable: true,
        message: 'the agent exited without reporting a result',
      },
    };
  }
  if (o.verifyFailure) {
    return {
      success: false,
      failureReason: { type: 'verify', retriable: false, message: verifyFailureMessage(o.verifyFailure) },
    };
  }
  return { success: true };
}

/** How a stopped codon's failureReason reads: who stopped it and why (`reason` says who, e.g. "by a client: stuck"). */
export function stoppedMessage(by: 'forceStop' | 'skip', reason: string | undefined): string {
  if (by === 'skip') return reason ? `skipped ${reason}` : 'skipped by a client';
  return reason ? `stopped ${reason}` : 'stopped by a client';
}
