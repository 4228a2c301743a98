import { doneVerdict } from '../../core/protocol/idle-verdict.ts';
import type { FailureReason, ServerEvent } from '../../core/protocol/index.ts';
import type { NotifyEvent } from '../../plan/unattended-schema.ts';

/**
 * Which published events are worth a notification, and what each one says. Pure: fed the bus's
 * events in order, it keeps only what a payload needs (run id and start, costs, the codon's
 * attempt) and answers the notices an event gives, none for most.
 */

/** What a webhook receives as its JSON body (docs/unattended.md#notifications). */
export type NotifyPayload = {
  event: NotifyEvent;
  runId: string;
  plan: string;
  codonId?: string;
  /** What happened, in words: the failure's message, the error event's message, the idle message. */
  reason: string;
  failureReason?: FailureReason;
  /** The codon's spend so far (agent and sentinels), US dollars. */
  codonCostUsd?: number;
  /** The current run's spend, US dollars. */
  runCostUsd: number;
  /** How long the codon ran, when it has ended. */
  codonDurationMs?: number;
  /** Milliseconds since the current run started. */
  runDurationMs: number;
  /** The attempt that ended (automatic retries count up) and the attempts allowed, when known. */
  attempt?: number;
  maxAttempts?: number;
  timestamp: string;
  serverVersion: string;
  executionPath: string;
};

export type NoticeContext = { plan: string; serverVersion: string; executionPath: string; runId: string };

type CodonTrack = { agentCost: number; sentinelCost: number; attempt?: number; maxAttempts?: number };

const ERROR_KINDS: Record<string, NotifyEvent> = {
  BUDGET_EXCEEDED: 'budget-exceeded',
  CODON_STALLED: 'stalled',
};

export class NoticeClassifier {
  readonly #context: NoticeContext;
  #runId: string;
  #runStartedAt: number;
  #runCost = 0;
  readonly #codons = new Map<string, CodonTrack>();
  /** How the codon that ended last ended: a skip is not a failure. */
  #lastStatus = new Map<string, string>();
  #lastFailure: { codonId: string; reason: string; failureReason?: FailureReason } | undefined;
  /** This server has started a codon (a server that finds every codon done has nothing to announce). */
  #ranCodon = false;
  /** run-failed was sent for the failure that idled the run: the run's end says no more. */
  #failureNotified = false;

  constructor(context: NoticeContext, now = Date.now()) {
    this.#context = context;
    this.#runId = context.runId;
    this.#runStartedAt = now;
  }

  /** The notices `event` gives (most give none). */
  next(event: ServerEvent, now = Date.now()): NotifyPayload[] {
    switch (event.type) {
      case 'state.transition':
        return this.#transition(event.data, now);
      case 'codon.started': {
        this.#ranCodon = true;
        this.#failureNotified = false;
        const { codonId, attempt, maxAttempts } = event.data;
        this.#codons.set(codonId, {
          agentCost: 0,
          sentinelCost: 0,
          ...(attempt !== undefined ? { attempt } : {}),
          ...(maxAttempts !== undefined ? { maxAttempts } : {}),
        });
        return [];
      }
      case 'codon.completed': {
        const d = event.data;
        if (d.success || this.#lastStatus.get(d.codonId) === 'skipped') return [];
        const reason = d.failureReason?.message ?? d.failureReason?.type ?? 'the codon failed';
        this.#lastFailure = {
          codonId: d.codonId,
          reason,
          ...(d.failureReason ? { failureReason: d.failureReason } : {}),
        };
        return [
          this.#payload('codon-failed', now, {
            codonId: d.codonId,
            reason,
            codonCostUsd: d.cost,
            codonDurationMs: d.duration,
            ...(d.failureReason ? { failureReason: d.failureReason } : {}),
          }),
        ];
      }
      case 'error': {
        const kind = typeof event.data.code === 'string' ? ERROR_KINDS[event.data.code] : undefined;
        if (!kind) return [];
        const codonId = event.data.codon;
        return [
          this.#payload(kind, now, {
            reason: event.data.message,
            ...(codonId ? { codonId, codonCostUsd: this.#codonCost(codonId) } : {}),
          }),
        ];
      }
      case 'server.idle': {
        if (!this.#ranCodon) return [];
        if (event.data.reason === 'all-codons-completed') {
          return [this.#payload('run-completed', now, { reason: event.data.message })];
        }
        const failed = doneVerdict(event.data, this.#lastFailure !== undefined) === false;
        if (!failed || this.#failureNotified) return [];
        this.#failureNotified = true;
        return [this.#runFailed(now, event.data.lastEnded?.codonId, event.data.message)];
      }
      default:
        return [];
    }
  }

  #transition(d: Extract<ServerEvent, { type: 'state.transition' }>['data'], now: number): NotifyPayload[] {
    if (d.resultingState.currentRunId !== null) this.#runCost = d.resultingState.currentRunCost;
    const t = d.transition;
    const codonId = typeof t.data.codonId === 'string' ? t.data.codonId : undefined;
    const track = codonId ? this.#codons.get(codonId) : undefined;
    const amount = (key: string) => (typeof t.data[key] === 'number' ? t.data[key] : 0);
    switch (d.transitionType) {
      case 'RunStarted':
        if (typeof t.data.runId === 'string') this.#runId = t.data.runId;
        this.#runStartedAt =
          typeof t.data.startedAt === 'string' ? Date.parse(t.data.startedAt) : this.#runStartedAt;
        this.#runCost = 0;
        this.#lastStatus.clear();
        return [];
      case 'CodonTransitioned':
        if (codonId && typeof t.data.to === 'string') this.#lastStatus.set(codonId, t.data.to);
        return [];
      case 'CostsUpdated':
        if (track) track.agentCost = amount('cost');
        return [];
      case 'CostsIncremented':
        if (track && t.data.source === 'sentinel') track.sentinelCost += amount('amount');
        else if (track) track.agentCost += amount('amount');
        return [];
      case 'CodonFinalCostSet':
        if (track) track.agentCost = amount('cost') - track.sentinelCost;
        return [];
      case 'RunFailed':
        // The run ended failed (a shutdown after a failure, `then: abort`): said once per failure.
        if (this.#failureNotified || !this.#ranCodon) return [];
        this.#failureNotified = true;
        return [
          this.#runFailed(
            now,
            this.#lastFailure?.codonId,
            typeof t.data.reason === 'string' ? t.data.reason : 'the run failed',
          ),
        ];
      default:
        return [];
    }
  }

  #runFailed(now: number, codonId: string | undefined, message: string): NotifyPayload {
    const failure = this.#lastFailure?.codonId === codonId ? this.#lastFailure : undefined;
    return this.#payload('run-failed', now, {
      reason: failure ? `${failure.reason} (${message})` : message,
      ...(codonId ? { codonId, codonCostUsd: this.#codonCost(codonId) } : {}),
      ...(failure?.failureReason ? { failureReason: failure.failureReason } : {}),
    });
  }

  #codonCost(codonId: string): number | undefined {
    const track = this.#codons.get(codonId);
    return track ? track.agentCost + track.sentinelCost : undefined;
  }

  #payload(
    event: NotifyEvent,
    now: number,
    fields: Partial<NotifyPayload> & { reason: string },
  ): NotifyPayload {
    const track = fields.codonId ? this.#codons.get(fields.codonId) : undefined;
    return {
      event,
      runId: this.#runId,
      plan: this.#context.plan,
      ...fields,
      runCostUsd: this.#runCost,
      runDurationMs: Math.max(0, now - this.#runStartedAt),
      ...(track?.attempt !== undefined ? { attempt: track.attempt } : {}),
      ...(track?.maxAttempts !== undefined ? { maxAttempts: track.maxAttempts } : {}),
      timestamp: new Date(now).toISOString(),
      serverVersion: this.#context.serverVersion,
      executionPath: this.#context.executionPath,
    };
  }
}
