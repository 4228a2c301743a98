import type { Logger } from 'pino';
import type { EventInput, FailureReason, ServerEvent } from '../../core/protocol/index.ts';
import type { EventBus } from '../../execution/journal/event-bus.ts';
import type { TransitionData } from '../../execution/state/transitions.ts';
import type { ProviderTarget } from '../../llm/providers/providers.ts';
import type { SpendGate } from '../../llm/spend/spend-gate.ts';
import type { CodonSentinel, LoadedSentinel, RuntimeCodon } from '../../plan/index.ts';
import { providerAuth } from '../../platform/credentials/credentials.ts';
import type { CodonHooks } from '../codon-hooks.ts';
import type { ActionEngine, SendMessage } from '../ports.ts';
import { memoryRedos, type RedoCounter } from './actions/take-actions.ts';
import { type CompiledSentinel, compileSentinel } from './compile-sentinel.ts';
import { seenBySentinels } from './seen-events.ts';
import { SentinelRuntime } from './sentinel-runtime.ts';
import { realTimers, type Timers } from './strategies.ts';

/** One sentinel's state, as the engine records it in SentinelStatesUpdated. */
export type SentinelState = TransitionData<'SentinelStatesUpdated'>['sentinels'][number];

export type SentinelHooksOptions = {
  bus: EventBus;
  logger: Logger;
  /**
   * Where a sentinel's calls go (the proxy when it is on, else its provider; asked at each call) and
   * its provider's key variable.
   */
  provider: (sentinel: LoadedSentinel) => ProviderTarget;
  /** `<execution>/.ribosome/sentinels`: sentinel `outputFiles` are relative to it. */
  outputDir: string;
  /** Publish `sentinel.triggered` (config key `sentinelTriggeredEvents`). */
  emitTriggered: boolean;
  /** Money a sentinel spent, as soon as a call returns (the engine adds it to the run's costs). */
  onCost(codonId: string, usd: number): void;
  /** The codon's sentinel states, after they load and whenever one unloads. */
  onStates(codonId: string, states: SentinelState[]): void;
  /** The agent root and the data directory's link in it: `{{agentRoot}}`, `{{dataDir}}` in templates. */
  paths?: { agentRoot: string; dataDir?: string };
  /** [pendingWorkTimeoutMs=15000] Longest wait at codon end for queued sentinel work. */
  pendingWorkTimeoutMs?: number;
  /** [callTimeoutMs=120000] Longest a single sentinel LLM call may take. */
  callTimeoutMs?: number;
  /**
   * [env=process.env] Where credentials are read (docs/agents.md#what-the-agent-may-do): the provider's
   * apiKeyEnv alone, else ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN (with its beta).
   */
  env?: NodeJS.ProcessEnv;
  /** [timers=real timers] Strategy timers (tests use fakes). */
  timers?: Timers;
  /** [now=() => new Date()] */
  now?: () => Date;
  /**
   * [engine=refuses every action] The engine's stop and rollback paths, for halt, rollback and redo
   * actions (docs/sentinels.md#sentinel-actions).
   */
  engine?: ActionEngine;
  /** [sendMessage=refuses] Orchestrator.sendMessage, for message actions. */
  sendMessage?: SendMessage;
  /**
   * [redos=counted in memory while the hooks live] What a redo's `max` counts; the server's counts
   * the redos journaled in the execution (journalRedos), across restarts.
   */
  redos?: RedoCounter;
  /**
   * [spendGate=none] The run's budgets, checked before each call (docs/unattended.md#budgets); the
   * server gives them while its sentinels' calls do not cross the proxy, which checks them otherwise.
   */
  spendGate?: () => SpendGate | undefined;
};

const NO_ENGINE = 'this server takes no sentinel actions';
const refusingEngine: ActionEngine = {
  halt: () => ({ ok: false, message: NO_ENGINE }),
  rollback: () => ({ ok: false, message: NO_ENGINE }),
  redo: () => ({ ok: false, message: NO_ENGINE }),
  comment: () => ({ ok: false, message: NO_ENGINE }),
};

type Group = { codon: RuntimeCodon; sentinels: SentinelRuntime[] };
type LoadProblem = {
  ref: string;
  sentinelId: string;
  kind: 'template' | 'configuration';
  message: string;
  failCodon: boolean;
};

/**
 * Sentinels as the engine sees them: loaded when a codon starts (`beforeAgent`), fed every event the
 * bus delivers while it runs, drained (bounded) and unloaded when it ends (`afterAgent`), ended at
 * once on `shutdown`. The bus listener only matches and enqueues; calls run on their own.
 */
export function createSentinelHooks(options: SentinelHooksOptions): CodonHooks {
  const log = options.logger.child({ component: 'sentinels' });
  const pendingWorkTimeoutMs = options.pendingWorkTimeoutMs ?? 15_000;
  if (!(pendingWorkTimeoutMs >= 0)) throw new TypeError('pendingWorkTimeoutMs must be >= 0');
  const timers = options.timers ?? realTimers;
  const now = options.now ?? (() => new Date());
  const env = options.env ?? process.env;
  const groups = new Map<string, Group>();
  // A redo's `max` counts over every run of its codon, so the count outlives each sentinel load.
  const redos = options.redos ?? memoryRedos();
  const engine = options.engine ?? refusingEngine;
  const sendMessage: SendMessage =
    options.sendMessage ?? (() => ({ ok: false, code: 'NO_CODON_RUNNING', message: NO_ENGINE }));
  let closed = false;

  // A failed publish (journal trouble) is logged, never thrown into a sentinel's worker.
  const publish = <T extends Parameters<EventBus['publish']>[0]>(type: T, data: EventInput<T>) =>
    options.bus.publish(type, data).catch((error: unknown) => {
      log.error({ err: error, type }, 'publishing a sentinel event failed');
    });

  const reportStates = (group: Group) => {
    try {
      options.onStates(
        group.codon.id,
        group.sentinels.map((s) => s.state),
      );
    } catch (error) {
      log.error({ err: error }, 'onStates failed');
    }
  };

  // The hot path reads a plain array and reads the clock only when a debounce needs it.
  let live: Group[] = [];
  let needsClock = false;
  const setGroup = (id: string, group: Group | undefined) => {
    if (group) groups.set(id, group);
    else groups.delete(id);
    live = [...groups.values()];
    needsClock = live.some((g) => g.sentinels.some((s) => s.strategy === 'debounce'));
  };

  const unsubscribe = options.bus.subscribe((event: ServerEvent) => {
    if (live.length === 0 || !seenBySentinels(event)) return;
    const codonId = 'codonId' in event.data ? event.data.codonId : undefined;
    const now = needsClock ? timers.now() : undefined;
    for (const group of live) {
      // An event of another codon (there is one at a time, but a late event may trail) is not ours.
      if (codonId !== undefined && codonId !== group.codon.id) continue;
      for (const sentinel of group.sentinels) sentinel.offer(event, now);
    }
  });

  async function unloadGroup(group: Group, reason: 'codon-complete' | 'shutdown'): Promise<void> {
    // Shutdown may have ended the group while afterAgent waited for it.
    if (groups.get(group.codon.id) !== group) return;
    setGroup(group.codon.id, undefined);
    await Promise.all(group.sentinels.map((s) => s.unload(reason)));
    if (group.sentinels.length > 0) reportStates(group);
  }

  async function reportLoadProblem(codon: RuntimeCodon, problem: LoadProblem): Promise<void> {
    const consequence = problem.failCodon
      ? 'the codon fails (failCodonOnLoadError)'
      : 'the codon runs without it';
    log.warn({ codonId: codon.id, ref: problem.ref, kind: problem.kind }, problem.message);
    if (problem.kind === 'template') {
      await publish('sentinel.error', {
        sentinelId: problem.sentinelId,
        codonId: codon.id,
        errorType: 'template-render-failed',
        message: problem.message,
        retriable: false,
        consecutiveFailureCount: 0,
      });
    }
    await publish('error', {
      message: `sentinel "${problem.ref}" of codon ${codon.id} cannot be loaded: ${problem.message}; ${consequence}`,
      codon: codon.id,
      fatal: false,
      severity: problem.failCodon ? 'codon' : 'warning',
      code: 'SENTINEL_LOAD_FAILED',
      context: problem.ref,
    });
  }

  return {
    async beforeAgent(codon, runId) {
      if (closed || codon.sentinels.length === 0) return undefined;
      const leftover = groups.get(codon.id);
      if (leftover) await unloadGroup(leftover, 'codon-complete');

      const compiled: CompiledSentinel[] = [];
      const problems: LoadProblem[] = [];
      for (const entry of codon.sentinels) {
        const result = compileEntry(entry, options.outputDir);
        if (result.ok) compiled.push(result.sentinel);
        else problems.push(result.problem);
      }
      for (const problem of problems) await reportLoadProblem(codon, problem);
      const failing = problems.filter((p) => p.failCodon);
      if (failing.length > 0) {
        return {
          type: 'sentinel-load-failure',
          retriable: false,
          sentinelRefs: failing.map((p) => p.ref),
          message: failing.map((p) => `sentinel "${p.ref}" cannot be loaded: ${p.message}`).join('; '),
        } satisfies FailureReason;
      }
      if (compiled.length === 0) return undefined;

      const group: Group = { codon, sentinels: [] };
      for (const sentinel of compiled) {
        group.sentinels.push(
          new SentinelRuntime({
            compiled: sentinel,
            codon,
            publish,
            logger: log.child({ runId }),
            providerBaseUrl: () => options.provider(sentinel.definition).baseUrl,
            auth: providerAuth(env, options.provider(sentinel.definition).apiKeyEnv),
            callTimeoutMs: options.callTimeoutMs ?? 120_000,
            emitTriggered: options.emitTriggered,
            timers,
            now,
            ...(options.paths ? { paths: options.paths } : {}),
            onCost: (usd) => {
              try {
                options.onCost(codon.id, usd);
              } catch (error) {
                log.error({ err: error }, 'onCost failed');
              }
            },
            onSelfUnload: () => reportStates(group),
            spendGate: options.spendGate,
            engine,
            sendMessage,
            redos,
          }),
        );
      }
      // Announced before the group goes live, so sentinel.loaded precedes anything it reacts to.
      await Promise.all(group.sentinels.map((s) => s.announce()));
      setGroup(codon.id, group);
      reportStates(group);
      return undefined;
    },

    async afterAgent(codon) {
      const group = groups.get(codon.id);
      if (!group) return;
      // Deliver what the agent published last before the strategies flush.
      options.bus.flush();
      for (const sentinel of group.sentinels) sentinel.flush();
      const settled = Promise.all(group.sentinels.map((s) => s.settle()));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        settled.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), pendingWorkTimeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        log.warn(
          { codonId: codon.id, pendingWorkTimeoutMs },
          'sentinel work still pending at codon end; abandoning it',
        );
      }
      await unloadGroup(group, 'codon-complete');
    },

    async shutdown() {
      closed = true;
      await Promise.all([...groups.values()].map((g) => unloadGroup(g, 'shutdown')));
      unsubscribe();
    },
  };
}

function compileEntry(
  entry: CodonSentinel,
  outputDir: string,
): { ok: true; sentinel: CompiledSentinel } | { ok: false; problem: LoadProblem } {
  const result = compileSentinel(entry.sentinel, outputDir);
  if (result.ok) return result;
  return {
    ok: false,
    problem: {
      ref: entry.ref,
      sentinelId: entry.sentinel.id,
      kind: result.failure.kind,
      message: result.failure.message,
      failCodon: entry.sentinel.errorHandling.failCodonOnLoadError,
    },
  };
}
