import { setTimeout as sleep } from 'node:timers/promises';
import type { NotifyPayload } from './notices.ts';
import type { PreparedTarget } from './target.ts';

export type DeliveryOptions = {
  /** Notices waiting for one target; one more drops the oldest waiting. Default 100. */
  maxQueued: number;
  /** One request's limit, answer included. Default 5000. */
  timeoutMs: number;
  /** Attempts per notice, the first included. Default 4. */
  maxAttempts: number;
  /** Wait before the second attempt; doubles for each further one. Default 500. */
  backoffMs: number;
  /** Longest wait between attempts. Default 4000. */
  maxBackoffMs: number;
};

export const DEFAULT_DELIVERY: DeliveryOptions = {
  maxQueued: 100,
  timeoutMs: 5_000,
  maxAttempts: 4,
  backoffMs: 500,
  maxBackoffMs: 4_000,
};

/** How one notice fared. `problem` never holds the URL (only statuses and error codes). */
export type DeliveryResult =
  | { ok: true; attempts: number }
  | { ok: false; attempts: number; problem: string };

type Attempt = { ok: true } | { ok: false; retriable: boolean; problem: string };

/** Whether an answer is worth another try: the receiver was busy or broken, not refusing the notice. */
export function retriableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The wait before attempt `attempt + 1` (attempt counts from 1). */
export function backoffBefore(
  attempt: number,
  o: Pick<DeliveryOptions, 'backoffMs' | 'maxBackoffMs'>,
): number {
  return Math.min(o.maxBackoffMs, o.backoffMs * 2 ** (attempt - 1));
}

/** A network failure in words: its code (ECONNREFUSED, ENOTFOUND), never its message (it may quote the URL). */
function networkProblem(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : (error as { code?: unknown }).code;
  return typeof code === 'string' ? `request failed (${code})` : `request failed (${(error as Error).name})`;
}

async function postOnce(
  target: PreparedTarget,
  body: string,
  o: DeliveryOptions,
  stop: AbortSignal,
  userAgent: string,
): Promise<Attempt> {
  const timeout = AbortSignal.timeout(o.timeoutMs);
  try {
    const response = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent, ...target.headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([timeout, stop]),
    });
    await response.body?.cancel().catch(() => {});
    if (response.status >= 200 && response.status < 300) return { ok: true };
    return {
      ok: false,
      retriable: retriableStatus(response.status),
      problem: `the receiver answered HTTP ${response.status}`,
    };
  } catch (error) {
    if (stop.aborted)
      return { ok: false, retriable: false, problem: 'the server stopped before it got an answer' };
    if (timeout.aborted) return { ok: false, retriable: true, problem: `no answer within ${o.timeoutMs} ms` };
    return { ok: false, retriable: true, problem: networkProblem(error) };
  }
}

/**
 * One target's notices, sent one at a time in order, each with bounded attempts. Never blocks its
 * caller: `push` returns at once; a full queue drops its oldest waiting notice (reported).
 */
export class DeliveryQueue {
  readonly #target: PreparedTarget;
  readonly #o: DeliveryOptions;
  readonly #stop: AbortSignal;
  readonly #userAgent: string;
  readonly #onResult: (payload: NotifyPayload, result: DeliveryResult) => void;
  #waiting: NotifyPayload[] = [];
  #running: Promise<void> | undefined;

  constructor(options: {
    target: PreparedTarget;
    delivery: DeliveryOptions;
    /** Aborted at shutdown once the grace period is over: whatever is left is dropped. */
    stop: AbortSignal;
    userAgent: string;
    onResult: (payload: NotifyPayload, result: DeliveryResult) => void;
  }) {
    this.#target = options.target;
    this.#o = options.delivery;
    this.#stop = options.stop;
    this.#userAgent = options.userAgent;
    this.#onResult = options.onResult;
  }

  push(payload: NotifyPayload): void {
    if (this.#waiting.length >= this.#o.maxQueued) {
      const dropped = this.#waiting.shift();
      if (dropped)
        this.#onResult(dropped, {
          ok: false,
          attempts: 0,
          problem: `dropped: more than ${this.#o.maxQueued} notifications waiting`,
        });
    }
    this.#waiting.push(payload);
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
  }

  /** Resolves once nothing is waiting or being sent. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    for (let payload = this.#waiting.shift(); payload; payload = this.#waiting.shift()) {
      this.#onResult(payload, await this.#send(payload));
    }
  }

  async #send(payload: NotifyPayload): Promise<DeliveryResult> {
    const body = JSON.stringify(payload);
    let problem = 'the server stopped before it was sent';
    for (let attempt = 1; attempt <= this.#o.maxAttempts; attempt++) {
      if (this.#stop.aborted) return { ok: false, attempts: attempt - 1, problem };
      const result = await postOnce(this.#target, body, this.#o, this.#stop, this.#userAgent);
      if (result.ok) return { ok: true, attempts: attempt };
      problem = result.problem;
      if (!result.retriable || attempt === this.#o.maxAttempts)
        return { ok: false, attempts: attempt, problem };
      try {
        await sleep(backoffBefore(attempt, this.#o), undefined, { signal: this.#stop });
      } catch {
        return {
          ok: false,
          attempts: attempt,
          problem: `${problem}; the server stopped before the next attempt`,
        };
      }
    }
    return { ok: false, attempts: this.#o.maxAttempts, problem };
  }
}
