import type { Logger } from 'pino';
import { echo } from '../../../core/protocol/index.ts';
import type { ActionContext } from '../../../plan/templates/action-variables.ts';
import type { ActionEngine, ActionResult, MessageOutcome, SendMessage } from '../../ports.ts';
import {
  type CompiledAction,
  type Decision,
  decideActions,
  ENDS_RUN,
  freshGuards,
  type Limits,
  type Output,
  type RunGuards,
} from './decide-actions.ts';

/** One redo action of one sentinel for one codon: what a redo's `max` counts for. */
export type RedoKey = { codonId: string; sentinelId: string; condition: string };

/**
 * How many redos an action took for a codon (a redo's `max`). The server's counts the redos
 * journaled in the execution (journalRedos); without a journal, those taken since it was made.
 */
export interface RedoCounter {
  done(key: RedoKey): number;
  /** A redo the engine took. */
  taken(key: RedoKey): void;
}

/** A counter in memory: redos taken since it was made. */
export function memoryRedos(): RedoCounter {
  const counts = new Map<string, number>();
  const name = (k: RedoKey) => `${k.codonId}\n${k.sentinelId}\n${k.condition}`;
  return {
    done: (key) => counts.get(name(key)) ?? 0,
    taken: (key) => void counts.set(name(key), (counts.get(name(key)) ?? 0) + 1),
  };
}

/**
 * The sentinel.action redos (not dry runs) of the execution's journal, every run and server: a
 * redo is counted from its announcement, so one a crash interrupted counts too. An action is told
 * by its condition: its reason is the condition, with " (N times)" when `after` asks for more than one.
 */
export function journalRedos(actions: () => Iterable<{ json: string }>): RedoCounter {
  return {
    done: ({ codonId, sentinelId, condition }) => {
      let n = 0;
      for (const row of actions()) {
        const data = (JSON.parse(row.json) as { data?: Record<string, unknown> }).data ?? {};
        const reason = typeof data.reason === 'string' ? data.reason : '';
        if (
          data.action === 'redo' &&
          data.dryRun === false &&
          data.codonId === codonId &&
          data.sentinelId === sentinelId &&
          (reason === condition || reason.startsWith(`${condition} (`))
        )
          n++;
      }
      return n;
    },
    taken: () => {},
  };
}

export type ActionsOptions = {
  actions: readonly CompiledAction[];
  limits: Limits;
  dryRun: boolean;
  sentinelId: string;
  codon: { id: string; name: string };
  engine: ActionEngine;
  sendMessage: SendMessage;
  redos: RedoCounter;
  now: () => number;
  logger: Logger;
  /** sentinel.action, before the action takes effect. */
  announce(data: {
    triggerNumber: number;
    action: Decision['kind'];
    dryRun: boolean;
    reason: string;
    text?: string;
  }): Promise<unknown>;
  /** sentinel.error with errorType action-failed. */
  failed(message: string): Promise<unknown>;
  /** An action a guard kept back (an `info` event: nothing happened, and why). */
  heldBack(message: string): Promise<unknown>;
};

/**
 * The thin shell over decideActions for one sentinel in one codon run: announces each decision
 * (sentinel.action), then, unless it is a dry run, carries it out; a refusal or a failure is a
 * sentinel.error (action-failed), never a throw.
 */
export class SentinelActions {
  readonly #o: ActionsOptions;
  #guards: RunGuards;
  #ended = false;

  constructor(options: ActionsOptions) {
    this.#o = options;
    this.#guards = freshGuards(options.actions.length);
  }

  /** The engine took a halt, rollback or redo: the codon's run is ending. */
  get ended(): boolean {
    return this.#ended;
  }

  async afterOutput(output: Output, triggerNumber: number): Promise<void> {
    const o = this.#o;
    const context: ActionContext = { output, sentinelId: o.sentinelId, codon: o.codon, triggerNumber };
    const { decisions, guards, heldBack } = decideActions(
      o.actions,
      context,
      this.#guards,
      o.limits,
      o.now(),
      (i) => this.#redosDone(i),
    );
    this.#guards = guards;
    // In the actions' order: a note that an action was held back comes after the action that held it.
    const steps = [
      ...decisions.map((decision) => ({ index: decision.index, decision })),
      ...heldBack.map((held) => ({ index: held.index, held })),
    ].sort((a, b) => a.index - b.index);
    for (const step of steps) {
      if ('held' in step) {
        const { held } = step;
        await o.heldBack(
          `sentinel ${o.sentinelId}: ${held.kind} on output #${triggerNumber} not taken${o.dryRun ? ' (dry run)' : ''}: ${held.why}`,
        );
        continue;
      }
      const { decision } = step;
      if ('error' in decision) {
        await o.failed(`${decision.kind} not taken: ${decision.error}`);
        continue;
      }
      const text = decision.text;
      await o.announce({
        triggerNumber,
        action: decision.kind,
        dryRun: o.dryRun,
        reason: decision.reason,
        ...(text === undefined ? {} : { text }),
      });
      if (o.dryRun) continue;
      const refused = await this.#take(decision, output, text);
      if (refused !== undefined) await o.failed(`${decision.kind} failed: ${refused}`);
      else if (ENDS_RUN.has(decision.kind)) this.#ended = true;
    }
  }

  /** Carries one decision out; why it failed, if it did. */
  async #take(decision: Decision, output: Output, text: string | undefined): Promise<string | undefined> {
    const o = this.#o;
    const codonId = o.codon.id;
    const shown = echo(typeof output === 'string' ? output : JSON.stringify(output), 500);
    const why = `by sentinel ${o.sentinelId} (${decision.kind} on ${decision.reason}); its output: ${shown}`;
    const later = (message: string) => void o.failed(`${decision.kind} failed: ${message}`);
    try {
      switch (decision.kind) {
        case 'message': {
          const sent = await o.sendMessage(text ?? '', { kind: 'sentinel', sentinelId: o.sentinelId });
          return refusal(sent);
        }
        case 'halt':
          return refusal(o.engine.halt(codonId, why));
        case 'rollback':
          return refusal(o.engine.rollback(codonId, why, later));
        case 'redo': {
          const taken = o.engine.redo(codonId, why, text, later, {
            kind: 'sentinel',
            sentinelId: o.sentinelId,
          });
          if (taken.ok) o.redos.taken(this.#redoKey(decision.index));
          return refusal(taken);
        }
        case 'comment': {
          const place = o.actions[decision.index]?.comment;
          if (!place) return 'the action has no file and lines';
          const from = { kind: 'sentinel' as const, sentinelId: o.sentinelId };
          return refusal(o.engine.comment(codonId, { ...place, text: text ?? '' }, from, later));
        }
      }
    } catch (error) {
      o.logger.error({ err: error, action: decision.kind }, 'a sentinel action failed unexpectedly');
      return (error as Error).message;
    }
  }

  #redosDone(index: number): number {
    return this.#o.redos.done(this.#redoKey(index));
  }

  #redoKey(index: number): RedoKey {
    const o = this.#o;
    return { codonId: o.codon.id, sentinelId: o.sentinelId, condition: o.actions[index]?.condition ?? '' };
  }
}

function refusal(result: ActionResult | MessageOutcome): string | undefined {
  if (result.ok) return undefined;
  return 'code' in result ? `${result.code}: ${result.message}` : result.message;
}
