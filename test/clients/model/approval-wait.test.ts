import { beforeEach, describe, expect, it } from 'vitest';
import { createActions } from '../../../src/clients/model/actions.ts';
import {
  APPROVAL_WAIT_WORD,
  approvalEndedText,
  approvalWaitText,
} from '../../../src/clients/model/approval-wait.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { reduceRun } from '../../../src/clients/model/store/reduce.ts';
import { initialRunState, type RunState } from '../../../src/clients/model/store/run-state.ts';
import { approvalChoices, runWord } from '../../../src/clients/model/store/selectors.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { codonEnd, codonStart, resetCost, rollback, runStarted } from './helpers/events.ts';
import { ev, FakeClient } from './helpers/fake-client.ts';

const WAIT = {
  codonId: 'design',
  codonName: 'Design the API',
  checkpointSha: 'abcdef1234567890',
  since: '2026-11-30T12:00:00.000Z',
  approvers: 'control-clients' as const,
};
const waiting = ev('approval.waiting', { ...WAIT, message: 'waiting for approval of codon design' });
const heldIdle = ev('server.idle', {
  reason: 'codon-completed',
  message: 'waiting for approval of codon design',
  nextCodonId: 'build',
  heldBy: 'approval',
  approval: WAIT,
});
const fold = (events: readonly ServerEvent[]) => foldEvents(initialRunState('ws://x'), events);
const ranDesign = () => [
  ...runStarted(),
  ...codonStart('design', 0, 'Design the API'),
  ...codonEnd('design', 'completed'),
];

describe('the approval wait in the client model', () => {
  beforeEach(() => resetCost());

  it('says which codon waits, in the header and on its row, from approval.waiting', () => {
    const state = fold([...ranDesign(), waiting, heldIdle]);
    expect(state.run.approvalWait).toEqual(WAIT);
    expect(runWord(state.run)).toBe('waiting for approval of codon design (Design the API)');
    expect(state.codons.design?.note).toBe(APPROVAL_WAIT_WORD);
    expect(state.codons.design?.status).toBe('completed');
    expect(state.notice).toEqual({ text: 'waiting for approval of codon design', tone: 'warn' });
    expect(
      state.activity.some(
        (a) => a.kind === 'note' && a.text.includes('waiting for approval of codon design'),
      ),
    ).toBe(true);
  });

  it('learns the wait from a held server.idle or a snapshot alone (a client of a restarted server)', () => {
    expect(fold([...ranDesign(), heldIdle]).run.approvalWait).toEqual(WAIT);
    const snapshot = ev('state.snapshot', {
      completedCodons: [],
      fileTree: [],
      totalCost: 0,
      totalTime: 0,
      isRollingBack: false,
      approvalWait: WAIT,
    });
    expect(fold([...ranDesign(), snapshot]).run.approvalWait).toEqual(WAIT);
    // A snapshot without one: nothing waits any more.
    const { approvalWait: _w, ...without } = snapshot.data;
    const cleared = fold([...ranDesign(), waiting, ev('state.snapshot', without)]);
    expect(cleared.run.approvalWait).toBeUndefined();
    expect(cleared.codons.design?.note).toBeUndefined();
  });

  it('ends with approval.ended, a codon starting, or a rollback', () => {
    const approved = fold([
      ...ranDesign(),
      waiting,
      ev('approval.ended', {
        codonId: 'design',
        how: 'approved',
        clientId: 'client-1',
        message: 'codon design approved',
      }),
    ]);
    expect(approved.run.approvalWait).toBeUndefined();
    expect(approved.codons.design?.note).toBeUndefined();
    expect(approved.activity.at(-1)).toMatchObject({ kind: 'note', text: '▷ design: approved' });
    expect(fold([...ranDesign(), waiting, ...codonStart('build', 1)]).run.approvalWait).toBeUndefined();
    const rolled = fold([
      ...ranDesign(),
      waiting,
      ...rollback({ toCodon: 'design', checkpointType: 'start', undo: ['design'], toRun: 'run-2-efgh' }),
    ]);
    expect(rolled.run.approvalWait).toBeUndefined();
  });

  it('words how a wait ended', () => {
    expect(approvalWaitText({ codonId: 'design', codonName: 'design' })).toBe(
      'waiting for approval of codon design',
    );
    expect(approvalEndedText({ codonId: 'design', how: 'auto' })).toBe(
      'design: approved at once (--approve-all)',
    );
    expect(approvalEndedText({ codonId: 'design', how: 'changes-requested' })).toBe(
      'design: changes requested',
    );
    expect(approvalEndedText({ codonId: 'design', how: 'command', command: 'codon.redo' })).toBe(
      'design: codon.redo took over',
    );
  });

  it('offers the choices to a control client only', () => {
    const state = fold([...ranDesign(), waiting]);
    expect(approvalChoices(state.run, 'readandwrite')).toMatchObject({ canApprove: true, wait: WAIT });
    expect(approvalChoices(state.run, 'readonly')).toMatchObject({ canApprove: false });
    expect(approvalChoices(fold(ranDesign()).run, 'readandwrite')).toBeUndefined();
  });

  it('approve sends approval.approve, answered by approval.ended', () => {
    const client = new FakeClient();
    let state: RunState = fold([...ranDesign(), waiting]);
    const actions = createActions(client, (action) => {
      state = reduceRun(state, action);
    });
    actions.approve('design', '  looks good ');
    expect(client.sent.at(-1)).toMatchObject({
      type: 'approval.approve',
      data: { codonId: 'design', note: 'looks good' },
    });
    expect(state.commands.at(-1)).toMatchObject({ type: 'approval.approve', status: 'sent' });
    state = reduceRun(state, {
      kind: 'events',
      events: [ev('approval.ended', { codonId: 'design', how: 'approved', message: 'approved' })],
    });
    expect(state.commands.at(-1)?.status).toBe('answered');
  });
});
