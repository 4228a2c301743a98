import type { FailureReason, ProcessExit } from '../../core/protocol/index.ts';
import { verifyFailureMessage } from './gate-feedback.ts';
import type { VerifyFailure } from './gate-result.ts';

/** A usage limit the agent reached (docs/unattended.md#usage-limits): when it resets (epoch ms), if said. */
export type UsageLimitHit = { resetsAt?: number };

/** Who or what ended a codon early: a client (forceStop, skip) or its budget. */
export type StopKind = 'forceStop' | 'skip' | 'budget';

export type CodonOutcome = {
  exit: ProcessExit;
  /** The agent's final `result` line, if it printed one. */
  result?: {
    isError: boolean;
    apiErrorStatus: number | null;
    message: string;
    retryAfterMs?: number;
    /** The agent ended on a usage limit, not a short rate limit. */
    usageLimit?: UsageLimitHit;
  };
  timedOut: boolean;
  /** Set when the agent printed nothing for this many milliseconds and was stopped (a stall). */
  stalledAfterMs?: number;
  /** Why the agent could not be started at all (spawn failed: EMFILE, a missing binary). */
  startFailure?: string;
  /** Set when a client stopped the codon (forceStop / skip), or its budget ran out. */
  stoppedBy?: StopKind;
  /** What the client (or the shutdown) gave as the reason for stopping; for a budget, what ran out. */
  stopReason?: string;
  /** The agent ended well but a verification gate did not pass (docs/unattended.md#verification-gates). */
  verifyFailure?: VerifyFailure;
};

/**
 * Claude Code's result when it has no credential it can use ("Not logged in · Please run /login",
 * "Invalid API key · Please run /login"); its API status is null, as no request was answered.
 */
const NOT_LOGGED_IN = /^(Not logged in|Invalid API key)\b|Please run \/login/;

/**
 * Classifies how a codon ended (spec 2.4 FailureReason). Pure: the same outcome always gives the
 * same reason, so clients can decide on codon.redo from `type` and `retriable`. `retriable` is true
 * exactly for what an onFailure retry retries (src/engine/retries/retry-policy.ts isRetriable): a 429, a
 * 5xx/408/409 API error, a stall. An agent that could not start, a stop by a client or a budget, the
 * wall-clock timeout, a failed gate and any other failure would fail the same way again, or were meant.
 */
export function classifyOutcome(o: CodonOutcome): { success: boolean; failureReason?: FailureReason } {
  if (o.startFailure !== undefined) {
    return {
      success: false,
      failureReason: {
        type: 'unknown',
        retriable: false,
        message: `the agent could not be started: ${o.startFailure}`,
      },
    };
  }
  if (o.stalledAfterMs !== undefined) {
    return {
      success: false,
      failureReason: {
        type: 'timeout',
        retriable: true,
        message: `the agent stalled: no output for ${formatSeconds(o.stalledAfterMs)} s`,
      },
    };
  }
  if (o.timedOut) {
    return {
      success: false,
      failureReason: { type: 'timeout', retriable: false, message: 'the codon ran past its timeoutMs' },
    };
  }
  if (o.stoppedBy === 'budget') {
    // Never retried: the same work would spend past the same limit.
    return {
      success: false,
      failureReason: { type: 'budget', retriable: false, message: stoppedMessage('budget', o.stopReason) },
    };
  }
  if (o.stoppedBy) {
    return {
      success: false,
      failureReason: {
        type: 'unknown',
        retriable: false,
        message: stoppedMessage(o.stoppedBy, o.stopReason),
      },
    };
  }
  const limit = o.result?.usageLimit;
  if (limit) {
    // Retriable, but not by onFailure's backoff: onUsageLimit waits for the reset or hands over.
    return {
      success: false,
      failureReason: {
        type: 'usage-limit',
        retriable: true,
        ...(o.result?.message ? { message: o.result.message } : {}),
        ...(limit.resetsAt === undefined ? {} : { resetsAt: new Date(limit.resetsAt).toISOString() }),
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
  if (o.result?.isError && NOT_LOGGED_IN.test(o.result.message)) {
    // Claude Code found no credential it could use: as a 401, no retry gets further.
    return {
      success: false,
      failureReason: { type: 'api-error', retriable: false, message: o.result.message },
    };
  }
  if (o.result?.isError) {
    return {
      success: false,
      failureReason: { type: 'unknown', retriable: false, message: o.result.message },
    };
  }
  if (o.exit.type !== 'success') {
    const how =
      o.exit.type === 'error' ? `exited with code ${o.exit.code}` : `was killed by ${o.exit.signal}`;
    return {
      success: false,
      failureReason: { type: 'unknown', retriable: false, message: `the agent ${how}` },
    };
  }
  if (!o.result) {
    return {
      success: false,
      failureReason: {
        type: 'unknown',
        retriable: false,
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

/** What a codon.forceStop says when its sender gives no reason (the protocol's default). */
const DEFAULT_STOP_REASON = 'stopped by a client';

/**
 * Who stopped a codon and why, from a codon.forceStop's reason: "by a client: stuck"; the default
 * reason, or one that already says so, is not said twice ("stopped by a client: stopped by a client",
 * retrial 18 L9). Pure.
 */
export function clientStopReason(reason: string): string {
  const said = reason.trim();
  if (said === '') return 'by a client';
  if (said.toLowerCase().startsWith(DEFAULT_STOP_REASON))
    return `by a client${said.slice(DEFAULT_STOP_REASON.length)}`;
  return `by a client: ${said}`;
}

/** How a stopped codon's failureReason reads: who stopped it and why (`reason` says who, e.g. "by a client: stuck"). */
export function stoppedMessage(by: StopKind, reason: string | undefined): string {
  if (by === 'budget') return reason ?? 'its budget ran out';
  if (by === 'skip') return reason ? `skipped ${reason}` : 'skipped by a client';
  return reason ? `stopped ${reason}` : 'stopped by a client';
}

/** 90000 -> "90", 1500 -> "1.5". */
function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/** The code of the `error` event that goes with a codon that did not end well. */
export function errorCodeOf(
  failureReason: FailureReason | undefined,
  stalled: boolean,
): 'CODON_STALLED' | 'CODON_TIMEOUT' | 'BUDGET_EXCEEDED' | 'VERIFY_FAILED' | 'CODON_FAILED' {
  if (stalled) return 'CODON_STALLED';
  switch (failureReason?.type) {
    case 'timeout':
      return 'CODON_TIMEOUT';
    case 'budget':
      return 'BUDGET_EXCEEDED';
    case 'verify':
      return 'VERIFY_FAILED';
    default:
      return 'CODON_FAILED';
  }
}
