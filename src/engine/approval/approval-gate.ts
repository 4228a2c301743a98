import type { ApprovalWait, ErrorCode, EventInput, EventType } from '../../core/protocol/index.ts';
import type { RuntimeCodon } from '../../plan/index.ts';
import {
  type ApprovalHow,
  approvalTurn,
  approveCheck,
  endedMessage,
  type GateCommand,
  waitingMessage,
} from './rules.ts';

/** What the gate reads of a command's context (the engine's CommandContext is one). */
export type GateContext = { clientId: string; fail(code: ErrorCode, message: string): void };
/** A command as the engine takes it: its type and data (review.submit's among them). */
export type TakenCommand = { type: string; data?: unknown };

/** What the gate uses of the engine: its journal, its queue, and what runs next. */
export type ApprovalHost<C extends GateContext> = {
  publish: <T extends EventType>(type: T, data: EventInput<T>) => Promise<unknown>;
  enqueue: (task: () => Promise<void>, context?: C) => void;
  /** The run goes on as after the codon's end (the next codon starts when the run goes on by itself). */
  goOn: () => Promise<void>;
  /** The run idles, held by the wait (server.idle heldBy approval). */
  idle: () => Promise<unknown>;
  /**
   * Why a command that would end the wait is refused before it does (a review naming no comment, or
   * too big): the wait stays as it was and nothing of it is journaled.
   */
  check?: (command: TakenCommand) => { code: ErrorCode; message: string } | undefined;
  /** `ribosome run --approve-all`: every wait is approved as soon as it begins (journaled, `auto`). */
  approveAll: boolean;
  /** Whether the run starts its next codon by itself (`--no-autostart`: false); said in an approval. */
  autostart?: boolean;
  now?: () => number;
};

/**
 * Approval gates (docs/review.md#approval-gates), the shell: the wait in progress, begun after a
 * codon with `approval: required` ended well and ended by approval.approve or by a command that
 * takes over (rules.ts says which); each begin and end journaled (approval.waiting, approval.ended).
 * While it waits, the engine starts nothing by itself (Orchestrator#proceed asks `wait`).
 */
export class ApprovalGate<C extends GateContext> {
  readonly #h: ApprovalHost<C>;
  #wait: ApprovalWait | undefined;

  constructor(host: ApprovalHost<C>) {
    this.#h = host;
  }

  /** The wait in progress, as server.idle and state.snapshot carry it. */
  get wait(): ApprovalWait | undefined {
    return this.#wait;
  }

  /** The codon ended well and requires approval: the wait begins (and ends at once with --approve-all). */
  async begin(codon: RuntimeCodon, checkpointSha: string | undefined): Promise<void> {
    const wait: ApprovalWait = {
      codonId: codon.id,
      codonName: codon.name,
      ...(checkpointSha === undefined ? {} : { checkpointSha }),
      since: new Date((this.#h.now ?? Date.now)()).toISOString(),
      approvers: 'control-clients',
    };
    this.#wait = wait;
    await this.#h.publish('approval.waiting', { ...wait, message: waitingMessage(wait) });
    if (this.#h.approveAll) await this.#end('auto');
  }

  /**
   * A wait a previous server journaled and nothing ended: waited for again (the restarted server's
   * idle says so), or approved at once with --approve-all.
   */
  async resume(wait: ApprovalWait): Promise<void> {
    this.#wait = wait;
    await this.#h.publish('info', {
      message: `the server stopped during an approval wait: codon ${wait.codonId} still waits for approval`,
    });
    if (this.#h.approveAll) await this.#end('auto');
  }

  /** approval.approve in its turn: the waiting codon's approval ends the wait, and the run goes on. */
  async approve(data: { codonId: string; note?: string | undefined }, context: C): Promise<void> {
    const checked = approveCheck(this.#wait, data.codonId);
    if (!checked.ok) return context.fail(checked.code, checked.message);
    await this.#end('approved', { clientId: context.clientId, ...(data.note ? { note: data.note } : {}) });
    await this.#h.goOn();
  }

  /**
   * Every command passes here before its route: while a codon waits, a start of anything else is
   * refused (APPROVAL_REQUIRED, `handled`); a command that ends the wait (a redo, a rollback, a review
   * sent to redo) ends it in its turn and goes on with the context returned. Refused in turn (an unknown
   * checkpoint, a budget), it gives the wait back, journaled again: nothing else may start then.
   */
  takeOver(command: TakenCommand, context: C): C | 'handled' {
    const wait = this.#wait;
    if (!wait) return context;
    const turn = approvalTurn(wait, gateCommand(command));
    if (turn.kind === 'pass') return context;
    if (turn.kind === 'refuse') {
      context.fail(turn.code, turn.message);
      return 'handled';
    }
    const refused = this.#h.check?.(command);
    if (refused) {
      context.fail(refused.code, refused.message);
      return 'handled';
    }
    this.#wait = undefined;
    const by = { clientId: context.clientId, command: command.type };
    this.#h.enqueue(async () => void (await this.#ended(wait.codonId, turn.how, by)), context);
    return {
      ...context,
      fail: (code, message) => {
        context.fail(code, message);
        if (this.#wait) return;
        this.#wait = wait;
        this.#h.enqueue(async () => {
          // Something else began meanwhile (a codon started): the wait stays over.
          if (this.#wait !== wait) return;
          await this.#h.publish('approval.waiting', {
            ...wait,
            message: `${command.type} was refused; ${waitingMessage(wait)}`,
          });
          await this.#h.idle();
        });
      },
    };
  }

  /** A codon started (any way): no wait goes on past it. */
  started(): void {
    this.#wait = undefined;
  }

  async #end(how: ApprovalHow, by: { clientId?: string; note?: string; command?: string } = {}) {
    const wait = this.#wait;
    if (!wait) return;
    this.#wait = undefined;
    await this.#ended(wait.codonId, how, by);
  }

  #ended(
    codonId: string,
    how: ApprovalHow,
    by: { clientId?: string; note?: string; command?: string },
  ): Promise<unknown> {
    return this.#h.publish('approval.ended', {
      codonId,
      how,
      ...by,
      message: endedMessage(codonId, how, by.clientId, by.command, this.#h.autostart ?? true),
    });
  }
}

/** The command's type, and the codon and review target its data names (review.submit's among them). */
function gateCommand(command: TakenCommand): GateCommand {
  const { data } = command;
  const field = (key: string) =>
    typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>)[key] === 'string'
      ? ((data as Record<string, unknown>)[key] as string)
      : undefined;
  const codonId = field('codonId');
  const to = field('to');
  return {
    type: command.type,
    ...(codonId === undefined ? {} : { codonId }),
    ...(to === undefined ? {} : { to }),
  };
}
