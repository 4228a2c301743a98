import { echo, type MessageSender, REASON_MAX_CHARS } from '../core/protocol/index.ts';
import { runBranchName } from '../execution/checkpoints/index.ts';
import { type EngineState, latestRunId, runOf } from '../execution/state/reducer.ts';
import type { RuntimeCodon } from '../plan/index.ts';
import type { LoadedPlan } from '../plan/loaded-plan.ts';
import { listCheckpoints } from './checkpoint-list.ts';
import type { Checkpointing } from './checkpointing.ts';
import type { CodonLifecycle } from './codon-lifecycle.ts';
import type { CommandContext, EngineCommand } from './engine.ts';
import type { DeliveryOutcome } from './message-delivery.ts';
import { clientStopReason } from './outcome/failure.ts';
import type { ReviewRoutes } from './review-routes.ts';
import type { RollbackAdmission } from './rollback-admission.ts';
import type { RollbackCommand } from './rollback-target.ts';
import { unknownCodonMessage } from './unknown-codon.ts';
import { lineageOf, nextCodon, redoCodon } from './what-next.ts';

type CommandMap = { [C in EngineCommand as C['type']]: C };
type Route<C> = {
  /**
   * Taken while an automatic retry waits, it cancels the retry (docs/unattended.md#automatic-retries-and-the-fallback-model); a read or a message leaves it.
   * A function decides by the command (review.submit takes over only to redo).
   */
  takesOverRetry: boolean | ((command: C) => boolean);
  take(command: C, context: CommandContext): void;
};
/** One route per command the engine takes; the connection-level ones are the server's (EngineCommand). */
export type CommandTable = { [T in keyof CommandMap]: Route<CommandMap[T]> };

/** What the commands use of the orchestrator: its queue, its state, its starts and its rollback. */
export type CommandHost = {
  plan: LoadedPlan;
  state: () => EngineState;
  lifecycle: Pick<CodonLifecycle, 'active' | 'preparing' | 'stopping' | 'stopActive'>;
  checkpoints: Checkpointing;
  admission: RollbackAdmission;
  /** The server is shutting down: no new work is taken. */
  stopping: () => boolean;
  /** Why a codon may not start now (an exhausted plan or loop budget). */
  budgetRefusal: (codonId: string) => string | undefined;
  enqueue: (task: () => Promise<void>, context?: CommandContext) => void;
  startCodon: (codon: RuntimeCodon, skipPreCommands: boolean) => Promise<void>;
  /** A rollback command's turn: rolling back from now until its run switch is done or it is refused. */
  rollbackTurn: (command: RollbackCommand, context: CommandContext) => Promise<void>;
  sendMessage: (text: string, from: MessageSender) => DeliveryOutcome;
  info: (message: string) => Promise<unknown>;
  /** approval.approve in its turn: ends the approval wait, and the run goes on (approval/approval-gate.ts). */
  approve: (command: CommandMap['approval.approve'], context: CommandContext) => Promise<void>;
  /** review.comment and review.submit (review/review-routes.ts). */
  review: ReviewRoutes;
};

const SHUTTING_DOWN = 'the server is shutting down; no new work is taken';

/**
 * Every command the engine takes, and how: a message goes straight to the running agent and the
 * reads are answered at once (never behind the queue, even while a rollback holds it); a stop is
 * meant for the codon active when it arrives; a rollback is admitted at once and waits for its turn;
 * the starts wait for theirs. Each handler checks what only its turn can know.
 */
export function commandTable(h: CommandHost): CommandTable {
  const inTurn =
    <C>(run: (command: C, context: CommandContext) => Promise<void>) =>
    (command: C, context: CommandContext) =>
      h.enqueue(() => (h.stopping() ? failShutdown(context) : run(command, context)), context);
  const rollback = {
    takesOverRetry: true,
    take: (command: RollbackCommand, context: CommandContext) => {
      // From now on the rollback is under way: commands that arrive after it are refused, not queued behind it.
      h.admission.queueCommand();
      h.enqueue(() => h.rollbackTurn(command, context), context);
    },
  };
  const stop = {
    takesOverRetry: true,
    take: (command: StopCommand, context: CommandContext) => {
      // A stop is meant for the codon active when it arrives, never for one started after it.
      const target = h.lifecycle.active?.id;
      // Rig setup runs inside the queue: a stop for it must not wait behind it.
      if (h.lifecycle.preparing)
        stopActive(h, command, context, target).catch((error: unknown) =>
          context.fail('INTERNAL_ERROR', `the command failed: ${(error as Error).message}`),
        );
      else h.enqueue(() => stopActive(h, command, context, target), context);
    },
  };
  return {
    'codon.start': { takesOverRetry: true, take: inTurn((command, context) => start(h, command, context)) },
    'codon.next': { takesOverRetry: true, take: inTurn((_, context) => startNext(h, context)) },
    'codon.redo': { takesOverRetry: true, take: inTurn((_, context) => redo(h, context)) },
    'codon.skip': stop,
    'codon.forceStop': stop,
    'codon.message': {
      takesOverRetry: false,
      take: (command, context) => {
        const sent = h.sendMessage(command.data.text, { kind: 'client', clientId: context.clientId });
        if (!sent.ok) context.fail(sent.code, sent.message);
      },
    },
    'review.comment': {
      takesOverRetry: false,
      take: (command, context) => h.review.comment(command, context),
    },
    // A review's redo is a start, as codon.redo; a message or the next codon's prompt leaves the retry be.
    'review.submit': {
      takesOverRetry: (command) => command.data.to === 'redo',
      take: (command, context) => h.review.submit(command, context),
    },
    'checkpoint.list': { takesOverRetry: false, take: (command, context) => listRun(h, command, context) },
    'checkpoint.diff': { takesOverRetry: false, take: (command, context) => diff(h, command, context) },
    'rollback.toCheckpoint': rollback,
    'rollback.toCodon': rollback,
    'rollback.toLastSuccess': rollback,
    'approval.approve': {
      takesOverRetry: false,
      take: inTurn((command, context) => h.approve(command, context)),
    },
  };
}

/** Routes one command; a command taken over a waiting retry goes on with the context Retrying gives it. */
export function dispatch(
  table: CommandTable,
  command: EngineCommand,
  context: CommandContext,
  takeOverRetry: (command: EngineCommand, context: CommandContext) => CommandContext | 'handled',
): void {
  route(table, command.type, command, context, takeOverRetry);
}

function route<T extends keyof CommandMap>(
  table: CommandTable,
  type: T,
  command: CommandMap[T],
  given: CommandContext,
  takeOverRetry: (command: EngineCommand, context: CommandContext) => CommandContext | 'handled',
): void {
  const { takesOverRetry, take } = table[type];
  const takes = typeof takesOverRetry === 'function' ? takesOverRetry(command) : takesOverRetry;
  const context = takes ? takeOverRetry(command, given) : given;
  if (context !== 'handled') take(command, context);
}

function failShutdown(context: CommandContext): Promise<void> {
  context.fail('SHUTTING_DOWN', SHUTTING_DOWN);
  return Promise.resolve();
}

// --- starts -----------------------------------------------------------------------------------------

async function start(h: CommandHost, command: CommandMap['codon.start'], ctx: CommandContext) {
  const codon = h.plan.codons.find((c) => c.id === command.data.codonId);
  if (!codon) {
    const ids = h.plan.codons.map((c) => c.id);
    return ctx.fail('UNKNOWN_CODON', unknownCodonMessage(command.data.codonId, h.plan.name, ids));
  }
  if (busy(h, ctx) || overBudget(h, codon, ctx)) return;
  return h.startCodon(codon, command.data.skipPreCommands);
}

async function startNext(h: CommandHost, ctx: CommandContext) {
  if (busy(h, ctx)) return;
  const next = nextCodon(h.plan.codons, lineageOf(h.state()));
  if (!next) {
    return ctx.fail(
      'NO_NEXT_CODON',
      `all ${h.plan.codons.length} codons are done; use codon.redo, or codon.start with a codon id, to run one again`,
    );
  }
  if (overBudget(h, next, ctx)) return;
  return h.startCodon(next, false);
}

async function redo(h: CommandHost, ctx: CommandContext) {
  if (busy(h, ctx)) return;
  const target = redoCodon(lineageOf(h.state()));
  const codon = target === undefined ? undefined : h.plan.codons.find((c) => c.id === target);
  if (!codon)
    return ctx.fail(
      'NOTHING_TO_REDO',
      target === undefined
        ? 'no codon has ended in this run history yet; start one with codon.next or codon.start'
        : `codon ${target} is no longer in plan "${h.plan.name}"; start one with codon.start`,
    );
  if (overBudget(h, codon, ctx)) return;
  return h.startCodon(codon, false);
}

function busy(h: CommandHost, ctx: CommandContext): boolean {
  const active = h.lifecycle.active;
  if (!active) return false;
  ctx.fail(
    'CODON_RUNNING',
    `codon ${active.id} is running; wait for codon.completed, or send codon.skip or codon.forceStop first`,
  );
  return true;
}

/** Refuses a start while the plan's budget (or the codon's loop's) is exhausted. */
function overBudget(h: CommandHost, codon: RuntimeCodon, ctx: CommandContext): boolean {
  const refused = h.budgetRefusal(codon.id);
  if (refused) ctx.fail('BUDGET_EXCEEDED', refused);
  return refused !== undefined;
}

// --- stops ------------------------------------------------------------------------------------------

type StopCommand = CommandMap['codon.skip' | 'codon.forceStop'];

/** codon.skip / codon.forceStop: ends the active codon; its end then decides what follows. */
async function stopActive(
  h: CommandHost,
  command: StopCommand,
  ctx: CommandContext,
  target: string | undefined,
): Promise<void> {
  if (h.stopping()) return failShutdown(ctx);
  const skip = command.type === 'codon.skip';
  const active = h.lifecycle.active;
  if (active && target !== active.id) {
    return ctx.fail(
      'NO_CODON_RUNNING',
      target
        ? `codon ${target} had ended when this ${command.type} was taken; ${active.id} runs now and is left alone`
        : `no codon was running when this ${command.type} arrived; ${active.id} started since and is left alone`,
    );
  }
  if (!active) {
    return ctx.fail(
      'NO_CODON_RUNNING',
      `no codon is running, so there is nothing to ${skip ? 'skip' : 'stop'}; codon.next starts the next one`,
    );
  }
  const reason = skip ? '' : echo(command.data.reason, REASON_MAX_CHARS);
  // Claimed before anything is awaited, so a second skip or stop sent meanwhile is refused.
  const stopped = h.lifecycle.stopActive(
    skip ? 'skip' : 'forceStop',
    skip ? undefined : clientStopReason(reason),
  );
  if (!stopped) {
    return ctx.fail(
      'CODON_STOPPING',
      `codon ${active.id} is already being ${h.lifecycle.stopping === 'skip' ? 'skipped' : 'stopped'}; wait for its codon.completed`,
    );
  }
  await h.info(skip ? `skipping codon ${active.id}` : `force-stopping codon ${active.id}: ${reason}`);
  await stopped;
}

// --- reads ------------------------------------------------------------------------------------------

/** A read of the state: answered at once, even while a rollback holds the queue. */
function listRun(h: CommandHost, command: CommandMap['checkpoint.list'], context: CommandContext): void {
  const state = h.state();
  const current = latestRunId(state);
  const runId = command.data.runId ?? current ?? '';
  if (!runOf(state, runId)) {
    context.fail('UNKNOWN_RUN', `no run "${echo(runId)}"; runs: ${state.runOrder.join(', ') || '(none)'}`);
    return;
  }
  const branch = runBranchName(current ?? '');
  context.reply('checkpoint.list', {
    runId,
    checkpoints: listCheckpoints(state, runId, runId === current),
    currentBranch: branch.ok ? branch.value : '',
  });
}

/** A read of the shadow repository: it waits only for the store's own queue, never for a codon. */
function diff(h: CommandHost, command: CommandMap['checkpoint.diff'], context: CommandContext): void {
  h.checkpoints
    .diff(command.data)
    .then((found) =>
      found.ok
        ? context.reply('checkpoint.diff', found.value)
        : context.fail(found.error.code, found.error.message),
    )
    .catch((error: unknown) =>
      context.fail('INTERNAL_ERROR', `checkpoint.diff failed: ${(error as Error).message}`),
    );
}
