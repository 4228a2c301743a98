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
  /** Part of `codonCostUsd` is Ribosome's estimate (an agent that reports no cost): as the other views mark it. */
  codonCostEstimated?: true;
  /** The spend of the run the codon belonged to (else the current run), US dollars. */
  runCostUsd: number;
  /** Part of `runCostUsd` is Ribosome's estimate. */
  runCostEstimated?: true;
  /** How long the codon ran, when it has ended. */
  codonDurationMs?: number;
  /** Milliseconds since the current run started. */
  runDurationMs: number;
  /** The attempt that ended (automatic retries count up) and the attempts allowed, when known. */
  attempt?: number;
  maxAttempts?: number;
  /** usage-limit: the agent whose limit was reached, when it resets (if it said) and when the codon starts again. */
  usageLimit?: { agent: string; resetsAt?: string; until: string };
  /** approval-needed: the name of the codon waiting for approval (`codonId` is its id). */
  codonName?: string;
  timestamp: string;
  serverVersion: string;
  executionPath: string;
};

export type NoticeContext = {
  plan: string;
  serverVersion: string;
  executionPath: string;
  runId: string;
  /**
   * The run the previous server left, as the state held it at this server's start: a crash's
   * codon-failed (published as that run's end) carries its id and cost, not the new run's.
   */
  previousRun?: { runId: string; cost: number; costEstimated?: boolean };
  /** `ribosome run --approve-all`: every approval wait is approved at once, so nobody is called for one. */
  approveAll?: boolean;
};

type CodonTrack = {
  agentCost: number;
  sentinelCost: number;
  attempt?: number;
  maxAttempts?: number;
};

const ERROR_KINDS: Record<string, NotifyEvent> = {
  BUDGET_EXCEEDED: 'budget-exceeded',
  CODON_STALLED: 'stalled',
};

export class NoticeClassifier {
  readonly #context: NoticeContext;
  #runId: string;
  #runStartedAt: number;
  #runCost = 0;
  #runCostEstimated = false;
  /** Codons whose agent reports no cost: Ribosome prices their tokens (the CodonStarted transition says). */
  readonly #priced = new Set<string>();
  readonly #codons = new Map<string, CodonTrack>();
  /** How the codon that ended last ended: a skip is not a failure. */
  #lastStatus = new Map<string, string>();
  #lastFailure: { codonId: string; reason: string; failureReason?: FailureReason } | undefined;
  /** This server has started a codon (a server that finds every codon done has nothing to announce). */
  #ranCodon = false;
  /** run-failed was sent for the failure that idled the run: the run's end says no more. */
  #failureNotified = false;
  /** The approval wait a person was called for (its `since`): a wait given back after a refused command is the same one. */
  #approvalCalled: string | undefined;

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
            ...(d.costEstimated ? { codonCostEstimated: true as const } : {}),
            codonDurationMs: d.duration,
            ...(d.failureReason ? { failureReason: d.failureReason } : {}),
          }),
        ];
      }
      case 'usageLimit.waiting': {
        const d = event.data;
        return [
          this.#payload('usage-limit', now, {
            codonId: d.codonId,
            reason: d.message,
            usageLimit: {
              agent: d.agent,
              ...(d.resetsAt === undefined ? {} : { resetsAt: d.resetsAt }),
              until: d.until,
            },
          }),
        ];
      }
      case 'approval.waiting': {
        const d = event.data;
        if (this.#context.approveAll || d.since === this.#approvalCalled) return [];
        this.#approvalCalled = d.since;
        return [
          this.#payload('approval-needed', now, {
            codonId: d.codonId,
            codonName: d.codonName,
            reason: d.message,
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
            ...(codonId ? { codonId, ...this.#codonSpend(codonId) } : {}),
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
    const t = d.transition;
    const { currentRunId } = d.resultingState;
    if (currentRunId !== null) {
      // The run the state calls current is the one the notices speak of: its id and its spend agree.
      this.#runId = currentRunId;
      this.#runCost = d.resultingState.currentRunCost;
      this.#runCostEstimated = d.resultingState.currentRunCostEstimated === true;
    } else if (d.transitionType === 'RunCrashed' && t.data.runId !== this.#runId) {
      // A crashed run ends without being current: its codon's end is told as that run's.
      const previous = this.#context.previousRun;
      if (previous && previous.runId === t.data.runId) {
        this.#runId = previous.runId;
        this.#runCost = previous.cost;
        this.#runCostEstimated = previous.costEstimated === true;
      }
    }
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
      case 'CodonStarted':
        if (codonId && t.data.costEstimated === true) this.#priced.add(codonId);
        else if (codonId) this.#priced.delete(codonId);
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
      ...(codonId ? { codonId, ...this.#codonSpend(codonId) } : {}),
      ...(failure?.failureReason ? { failureReason: failure.failureReason } : {}),
    });
  }

  #codonCost(codonId: string): number | undefined {
    const track = this.#codons.get(codonId);
    return track ? track.agentCost + track.sentinelCost : undefined;
  }

  /** The codon's spend so far and whether part of it is an estimate, as payload fields. */
  #codonSpend(codonId: string): Pick<NotifyPayload, 'codonCostUsd' | 'codonCostEstimated'> {
    const cost = this.#codonCost(codonId);
    if (cost === undefined) return {};
    const agentCost = this.#codons.get(codonId)?.agentCost ?? 0;
    // As the state marks it: an estimate once the priced part is more than nothing.
    const estimated = this.#priced.has(codonId) && agentCost > 0;
    return { codonCostUsd: cost, ...(estimated ? { codonCostEstimated: true } : {}) };
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
      ...(this.#runCostEstimated ? { runCostEstimated: true as const } : {}),
      runDurationMs: Math.max(0, now - this.#runStartedAt),
      ...(track?.attempt !== undefined ? { attempt: track.attempt } : {}),
      ...(track?.maxAttempts !== undefined ? { maxAttempts: track.maxAttempts } : {}),
      timestamp: new Date(now).toISOString(),
      serverVersion: this.#context.serverVersion,
      executionPath: this.#context.executionPath,
    };
  }
}
