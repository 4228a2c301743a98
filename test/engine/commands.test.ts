import { describe, expect, it } from 'vitest';
import { ClientCommand } from '../../src/core/protocol/index.ts';
import { type CommandHost, commandTable, dispatch } from '../../src/engine/commands.ts';
import type { CommandContext, EngineCommand } from '../../src/engine/engine.ts';
import { RollbackAdmission } from '../../src/engine/rollback-admission.ts';
import { reduceAll } from '../../src/execution/state/reducer.ts';

/** One of each command the engine takes (the server answers the rest itself). */
const COMMANDS = [
  { type: 'codon.start', data: { codonId: 'one' } },
  { type: 'codon.next' },
  { type: 'codon.redo' },
  { type: 'codon.skip' },
  { type: 'codon.forceStop', data: { reason: 'enough' } },
  { type: 'codon.message', data: { text: 'hello' } },
  { type: 'review.comment', data: { codonId: 'one', file: 'a', lines: { start: 1, end: 1 }, text: 'x' } },
  { type: 'review.submit', data: { codonId: 'one', to: 'redo' } },
  { type: 'review.submit', data: { codonId: 'one', to: 'message' } },
  { type: 'review.submit', data: { codonId: 'one', to: 'next' } },
  { type: 'checkpoint.list' },
  { type: 'checkpoint.diff', data: { from: 'abcd', to: 'abce' } },
  { type: 'rollback.toCheckpoint', data: { checkpointSha: 'abcd' } },
  { type: 'rollback.toCodon', data: { codonId: 'one', checkpointType: 'start' } },
  { type: 'rollback.toLastSuccess' },
].map((c, i) => ClientCommand.parse({ id: `c${i}`, ...c }) as EngineCommand);

function world(options: { preparing?: boolean; stopping?: boolean } = {}) {
  const queued: Array<() => Promise<void>> = [];
  const failures: string[] = [];
  const admission = new RollbackAdmission(() => false);
  const host: CommandHost = {
    plan: { name: 'p', codons: [] } as unknown as CommandHost['plan'],
    state: () => reduceAll([]),
    lifecycle: {
      active: undefined,
      preparing: options.preparing ?? false,
      stopping: undefined,
      stopActive: () => undefined,
    },
    checkpoints: { diff: async () => ({ ok: false, code: 'CHECKPOINT_NOT_FOUND', message: 'no' }) } as never,
    admission,
    stopping: () => options.stopping ?? false,
    budgetRefusal: () => undefined,
    enqueue: (task) => queued.push(task),
    startCodon: async () => {},
    rollbackTurn: async () => {},
    sendMessage: () => ({ ok: false, code: 'NO_CODON_RUNNING', message: 'no agent' }),
    info: async () => {},
    approve: async () => {},
    review: { comment: () => {}, submit: () => {}, refusal: () => undefined },
  };
  const context: CommandContext = {
    clientId: 'x',
    commandId: 'c',
    reply: () => {},
    fail: (code) => failures.push(code),
  };
  return { table: commandTable(host), queued, failures, admission, context };
}

describe('the command table', () => {
  it('every command but a message, a comment, a review not to redo and the reads takes over a waiting retry (docs/unattended.md#automatic-retries-and-the-fallback-model)', () => {
    const { table, context } = world();
    const tookOver: string[] = [];
    for (const command of COMMANDS)
      dispatch(table, command, context, (taken, given) => {
        tookOver.push(taken.type);
        return given;
      });
    const leaves = (c: EngineCommand) =>
      ['codon.message', 'review.comment', 'checkpoint.list', 'checkpoint.diff'].includes(c.type) ||
      (c.type === 'review.submit' && c.data.to !== 'redo');
    expect(tookOver).toEqual(COMMANDS.filter((c) => !leaves(c)).map((c) => c.type));
  });

  it('a rollback is under way from the moment it is taken, before its turn', () => {
    const { table, context, admission, queued } = world();
    const rollback = COMMANDS.find((c) => c.type === 'rollback.toLastSuccess')!;
    dispatch(table, rollback, context, (_, given) => given);
    expect(admission.busy).toBe(true);
    expect(queued).toHaveLength(1);
  });

  it('a start whose turn comes during a shutdown is refused SHUTTING_DOWN', async () => {
    const { table, context, queued, failures } = world({ stopping: true });
    for (const type of ['codon.start', 'codon.next', 'codon.redo'])
      dispatch(table, COMMANDS.find((c) => c.type === type)!, context, (_, given) => given);
    for (const task of queued) await task();
    expect(failures).toEqual(['SHUTTING_DOWN', 'SHUTTING_DOWN', 'SHUTTING_DOWN']);
  });

  it('a stop sent during rig setup is not queued behind it; answered at once, reads are too', () => {
    const { table, context, queued, failures } = world({ preparing: true });
    for (const type of ['codon.skip', 'codon.message', 'checkpoint.list'])
      dispatch(table, COMMANDS.find((c) => c.type === type)!, context, (_, given) => given);
    expect(queued).toHaveLength(0);
    // No codon was active (a stop of nothing), no agent takes a message, no run to list.
    expect(failures).toEqual(['NO_CODON_RUNNING', 'NO_CODON_RUNNING', 'UNKNOWN_RUN']);
  });
});
