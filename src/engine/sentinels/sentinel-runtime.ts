import type { Logger } from 'pino';
import type { EventInput, ServerEvent } from '../../core/protocol/index.ts';
import type { SpendGate } from '../../llm/spend/spend-gate.ts';
import type { RuntimeCodon } from '../../plan/index.ts';
import { type PromptContext, promptLookup } from '../../plan/templates/prompt-variables.ts';
import { formatTemplateError, renderTemplate } from '../../plan/templates/template.ts';
import type { RequestAuth } from '../../platform/credentials/credentials.ts';
import type { ActionEngine, SendMessage } from '../ports.ts';
import { type RedoCounter, SentinelActions } from './actions/take-actions.ts';
import type { CompiledSentinel, TriggerMatcher } from './compile-sentinel.ts';
import { type Turn, toMessages, trimHistory } from './history.ts';
import { callSentinelModel } from './llm-call.ts';
import { writeOutput } from './output-files.ts';
import { createStrategy, type Strategy, type Timers } from './strategies.ts';
import { structuredInstruction } from './structured-output.ts';
import { TriggerQueue } from './trigger-queue.ts';

export type UnloadReason = EventInput<'sentinel.unloaded'>['reason'];
export type UnloadErrorType = NonNullable<EventInput<'sentinel.unloaded'>['errorType']>;
type SentinelErrorType = EventInput<'sentinel.error'>['errorType'];
type SentinelEventType =
  | 'sentinel.loaded'
  | 'sentinel.unloaded'
  | 'sentinel.output'
  | 'sentinel.error'
  | 'sentinel.triggered'
  | 'sentinel.action'
  | 'info';

export type Publish = <T extends SentinelEventType>(type: T, data: EventInput<T>) => Promise<unknown>;

export type SentinelRuntimeOptions = {
  compiled: CompiledSentinel;
  codon: RuntimeCodon;
  publish: Publish;
  logger: Logger;
  /** Base URL of the sentinel's provider (the proxy's route when it is on), asked at each call. */
  providerBaseUrl: () => string;
  /** How its calls authenticate (providerAuth). */
  auth: RequestAuth;
  callTimeoutMs: number;
  emitTriggered: boolean;
  timers: Timers;
  now: () => Date;
  /** `{{agentRoot}}` and `{{dataDir}}`. */
  paths?: PromptContext['paths'];
  /** Money spent on a call, as soon as it is known. */
  onCost(usd: number): void;
  /** The sentinel unloaded itself (consecutive failures, fatal error). */
  onSelfUnload(): void;
  /** The engine's stop and rollback paths its halt, rollback and redo actions take. */
  engine: ActionEngine;
  /** Orchestrator.sendMessage: how a message action reaches the agent. */
  sendMessage: SendMessage;
  /** Redos taken per codon, shared by the codon's runs (a redo's `max`). */
  redos: RedoCounter;
  /** The run's budgets to check each call against, when the proxy does not (llm-call.ts). */
  spendGate?: (() => SpendGate | undefined) | undefined;
};

/** One event (event trigger) or the step events of a sequence. */
type Trigger = ServerEvent | ServerEvent[];

/**
 * One loaded sentinel of one codon. `offer` runs on the agent's event path: it matches the event
 * and queues a trigger, nothing more. The strategy cuts batches; a worker, started on a later turn
 * of the event loop, renders the prompts, calls the model, writes the output files and publishes
 * the results, one batch at a time.
 *
 * Status: loaded -> unloaded (final). Nothing is queued, called or published (but sentinel.unloaded)
 * once unloaded; an in-flight call is aborted and its result ignored.
 */
export class SentinelRuntime {
  readonly #o: SentinelRuntimeOptions;
  readonly #log: Logger;
  readonly #queue: TriggerQueue<Trigger>;
  readonly #strategy: Strategy;
  readonly #matcher: TriggerMatcher<ServerEvent>;
  readonly #abort = new AbortController();
  #status: 'loaded' | 'unloaded' = 'loaded';
  #working: Promise<void> | undefined;
  #history: Turn[] = [];
  #triggerNumber = 0;
  #consecutiveFailures = 0;
  #llmCallCount = 0;
  #cost = 0;
  #droppedTotal = 0;
  readonly #actions: SentinelActions | undefined;
  /** False once one of its actions ended the codon's run (halt, rollback, redo): nothing more is called. */
  #watching = true;

  constructor(options: SentinelRuntimeOptions) {
    this.#o = options;
    const { definition } = options.compiled;
    this.#log = options.logger.child({ sentinelId: definition.id, codonId: options.codon.id });
    this.#queue = new TriggerQueue(definition.maxQueue);
    this.#matcher = options.compiled.newMatcher<ServerEvent>();
    this.#strategy = createStrategy(definition.executionStrategy, () => this.#cut(), options.timers);
    this.#actions = this.#newActions();
  }

  get id(): string {
    return this.#o.compiled.definition.id;
  }

  get strategy(): Strategy['type'] {
    return this.#strategy.type;
  }

  get status(): 'loaded' | 'unloaded' {
    return this.#status;
  }

  get state() {
    return {
      sentinelId: this.id,
      status: this.#status,
      cost: this.#cost,
      llmCallCount: this.#llmCallCount,
    };
  }

  /** Announces the sentinel (sentinel.loaded). */
  announce(): Promise<unknown> {
    const d = this.#o.compiled.definition;
    return this.#o.publish('sentinel.loaded', {
      sentinelId: d.id,
      codonId: this.#o.codon.id,
      model: d.model,
      triggerType: d.trigger.type,
      executionStrategy: d.executionStrategy.type,
      conversational: d.conversational.enabled,
      source: d.source,
      ...(d.sourcePath ? { sourcePath: d.sourcePath } : {}),
    });
  }

  /**
   * The agent's event path: match and enqueue only (O(conditions)); never waits. `now` is
   * timers.now(), read once per event for all sentinels.
   */
  offer(event: ServerEvent, now?: number): void {
    if (this.#status !== 'loaded' || !this.#watching) return;
    const trigger = this.#matcher.offer(event);
    if (trigger === undefined) return;
    if (this.#queue.push(trigger)) this.#droppedTotal++;
    this.#strategy.trigger(now);
  }

  /** Sends what the strategy still holds as a last batch (the codon is ending). */
  flush(): void {
    if (this.#status === 'loaded' && this.#watching) this.#strategy.flush();
  }

  /** Resolves once no batch is waiting and no call is running. */
  async settle(): Promise<void> {
    while (this.#working) await this.#working;
  }

  /** Ends the sentinel; idempotent. Aborts an in-flight call and drops what is queued. */
  unload(reason: UnloadReason, errorType?: UnloadErrorType): Promise<unknown> {
    if (this.#status === 'unloaded') return Promise.resolve();
    this.#status = 'unloaded';
    this.#strategy.dispose();
    this.#abort.abort();
    const left = this.#queue.size;
    this.#queue.clear();
    this.#log.info(
      {
        reason,
        errorType,
        llmCallCount: this.#llmCallCount,
        cost: this.#cost,
        droppedTotal: this.#droppedTotal,
        left,
      },
      'sentinel unloaded',
    );
    return this.#o.publish('sentinel.unloaded', {
      sentinelId: this.id,
      codonId: this.#o.codon.id,
      reason,
      ...(errorType ? { errorType } : {}),
      finalCost: this.#cost,
      llmCallCount: this.#llmCallCount,
    });
  }

  // --- worker -----------------------------------------------------------------------------------------

  #cut(): void {
    if (this.#queue.cut() > 0) this.#kick();
  }

  #kick(): void {
    if (this.#working || this.#status !== 'loaded' || !this.#watching) return;
    // Started on a later turn: the bus listener that queued the trigger returns at once.
    this.#working = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#drain())
      .finally(() => {
        this.#working = undefined;
        if (this.#queue.batches > 0) this.#kick();
      });
  }

  async #drain(): Promise<void> {
    try {
      for (let batch = this.#queue.take(); batch; batch = this.#queue.take()) {
        if (this.#status !== 'loaded' || !this.#watching) return;
        await this.#process(batch);
      }
    } catch (error) {
      // A bug in our own code: the sentinel's state cannot be trusted any more.
      this.#log.error({ err: error }, 'sentinel failed unexpectedly');
      await this.#unloadSelf('fatal-error', 'corruption');
    }
  }

  async #process(batch: Trigger[]): Promise<void> {
    const { definition, output } = this.#o.compiled;
    const triggerNumber = ++this.#triggerNumber;
    const events = batch.flat();
    const droppedCount = this.#queue.takeDropped();
    if (droppedCount > 0) {
      this.#log.warn(
        { droppedCount, maxQueue: definition.maxQueue },
        'sentinel queue full: oldest triggers dropped',
      );
    }
    if (this.#o.emitTriggered) {
      await this.#o.publish('sentinel.triggered', {
        sentinelId: this.id,
        codonId: this.#o.codon.id,
        triggerNumber,
        strategy: definition.executionStrategy.type,
        eventCount: events.length,
        queueSize: this.#queue.size,
      });
    }

    const prompts = this.#render({
      events,
      droppedCount,
      triggerNumber,
      codon: this.#o.codon,
      sentinel: { id: definition.id, model: definition.model },
      time: this.#o.now().toISOString(),
      paths: this.#o.paths,
      outputSchema: output?.schema,
    });
    if (!prompts.ok) return this.#fail('template-render-failed', prompts.message, false);

    const history = definition.conversational.enabled ? this.#history : [];
    this.#llmCallCount++;
    const result = await callSentinelModel({
      baseUrl: this.#o.providerBaseUrl(),
      apiKey: this.#o.auth.apiKey,
      authToken: this.#o.auth.authToken,
      betas: this.#o.auth.betas,
      sentinelId: this.id,
      model: definition.model,
      maxTokens: definition.maxTokens,
      system: prompts.system,
      messages: toMessages(history, prompts.user),
      timeoutMs: this.#o.callTimeoutMs,
      signal: this.#abort.signal,
      spendGate: this.#o.spendGate?.(),
      codonId: this.#o.codon.id,
    });
    if (result.ok && result.cost > 0) {
      // Spent even when the answer is unusable or arrives after unloading.
      this.#cost += result.cost;
      this.#o.onCost(result.cost);
    }
    if (this.#status !== 'loaded') return;
    if (!result.ok) return this.#fail('llm-call-failed', result.message, result.retriable);

    let content: string | Record<string, unknown> = result.text;
    if (output) {
      const parsed = output.parse(result.text);
      if (!parsed.ok) return this.#fail('llm-call-failed', parsed.message, true);
      content = parsed.value;
    }
    this.#consecutiveFailures = 0;
    if (definition.conversational.enabled) {
      this.#history = trimHistory([...this.#history, { user: prompts.user, assistant: result.text }], {
        maxTurns: definition.conversational.maxTurns,
        maxTokens: definition.conversational.maxTokens,
      });
    }
    const problems = await writeOutput(this.#o.compiled.files, {
      time: this.#o.now().toISOString(),
      triggerNumber,
      content,
    });
    if (this.#status !== 'loaded') return;
    await this.#o.publish('sentinel.output', {
      sentinelId: this.id,
      codonId: this.#o.codon.id,
      triggerNumber,
      outputType: output ? 'structured' : 'text',
      content,
      cost: result.cost,
      tokens: result.tokens,
      eventCount: events.length,
    });
    for (const problem of problems) {
      // Not a failed call: it does not count toward maxConsecutiveFailures.
      await this.#publishError('file-write-failed', problem, true);
    }
    if (!this.#actions || this.#status !== 'loaded') return;
    await this.#actions.afterOutput(content, triggerNumber);
    if (this.#actions.ended) this.#stopWatching();
  }

  #newActions(): SentinelActions | undefined {
    const { compiled, codon } = this.#o;
    const { definition } = compiled;
    if (compiled.actions.length === 0) return undefined;
    const base = { sentinelId: definition.id, codonId: codon.id };
    return new SentinelActions({
      actions: compiled.actions,
      limits: { maxActions: definition.maxActions, cooldownMs: definition.cooldownMs },
      dryRun: definition.dryRun,
      sentinelId: definition.id,
      codon: { id: codon.id, name: codon.name },
      engine: this.#o.engine,
      sendMessage: this.#o.sendMessage,
      redos: this.#o.redos,
      now: () => this.#o.timers.now(),
      logger: this.#log,
      announce: (data) => {
        this.#log.info(data, 'sentinel action');
        return this.#o.publish('sentinel.action', { ...base, ...data });
      },
      failed: (message) => this.#publishError('action-failed', message, false),
      heldBack: (message) => this.#o.publish('info', { message }),
    });
  }

  /** One of its actions ends the codon's run: what is queued is dropped and no more calls are made. */
  #stopWatching(): void {
    this.#watching = false;
    this.#strategy.dispose();
    this.#queue.clear();
  }

  #render(
    context: PromptContext,
  ): { ok: true; system: string | undefined; user: string } | { ok: false; message: string } {
    const { systemPrompt, userPrompt, output } = this.#o.compiled;
    const lookup = promptLookup(context);
    let system: string | undefined;
    if (systemPrompt) {
      const rendered = renderTemplate(systemPrompt, lookup);
      if (!rendered.ok) return { ok: false, message: formatTemplateError(rendered.error, 'systemPrompt') };
      system = rendered.text;
    }
    if (output)
      system = system
        ? `${system}\n\n${structuredInstruction(output.schema)}`
        : structuredInstruction(output.schema);
    const user = renderTemplate(userPrompt, lookup);
    if (!user.ok) return { ok: false, message: formatTemplateError(user.error, 'userPrompt') };
    return { ok: true, system, user: user.text };
  }

  /** A failed attempt: counted, reported, and the sentinel unloaded once the limit is reached. */
  async #fail(errorType: SentinelErrorType, message: string, retriable: boolean): Promise<void> {
    this.#consecutiveFailures++;
    await this.#publishError(errorType, message, retriable);
    const limit = this.#o.compiled.definition.errorHandling.maxConsecutiveFailures;
    if (this.#consecutiveFailures >= limit) await this.#unloadSelf('consecutive-failures');
  }

  #publishError(errorType: SentinelErrorType, message: string, retriable: boolean): Promise<unknown> {
    this.#log.warn({ errorType, retriable, consecutiveFailures: this.#consecutiveFailures }, message);
    return this.#o.publish('sentinel.error', {
      sentinelId: this.id,
      codonId: this.#o.codon.id,
      errorType,
      message,
      retriable,
      consecutiveFailureCount: this.#consecutiveFailures,
    });
  }

  async #unloadSelf(reason: UnloadReason, errorType?: UnloadErrorType): Promise<void> {
    if (this.#status === 'unloaded') return;
    await this.unload(reason, errorType);
    this.#o.onSelfUnload();
  }
}
