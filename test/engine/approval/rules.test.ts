import { describe, expect, it } from 'vitest';
import type { ApprovalWait } from '../../../src/core/protocol/index.ts';
import { pendingApproval } from '../../../src/engine/approval/pending-approval.ts';
import { approvalTurn, approveCheck, endedMessage, holdsRun } from '../../../src/engine/approval/rules.ts';
import { MemoryJournal } from '../../../src/execution/journal/memory-journal.ts';

const WAIT: ApprovalWait = {
  codonId: 'design',
  codonName: 'Design',
  checkpointSha: 'abcdef12',
  since: '2026-11-30T12:00:00.000Z',
  approvers: 'control-clients',
};

describe('when a codon holds the run', () => {
  it.each([
    ['required', 'completed', true],
    ['required', 'failed', false],
    ['required', 'skipped', false],
    ['required', 'stopped', false],
    ['none', 'completed', false],
    [undefined, 'completed', false],
  ] as const)('approval %s, ended %s: %s', (approval, status, holds) => {
    expect(holdsRun(approval === undefined ? {} : { approval }, status)).toBe(holds);
  });
});

describe('what a command does while a codon waits for approval', () => {
  it.each([
    [{ type: 'codon.next' }, 'refuse'],
    [{ type: 'codon.start', codonId: 'build' }, 'refuse'],
    [{ type: 'codon.start', codonId: 'design' }, 'command'],
    [{ type: 'codon.redo' }, 'command'],
    [{ type: 'review.submit', codonId: 'design', to: 'redo' }, 'changes-requested'],
    [{ type: 'review.submit', codonId: 'design', to: 'next' }, 'pass'],
    [{ type: 'review.submit', codonId: 'build', to: 'redo' }, 'pass'],
    [{ type: 'rollback.toCodon', codonId: 'design' }, 'rolled-back'],
    [{ type: 'rollback.toCheckpoint' }, 'rolled-back'],
    [{ type: 'rollback.toLastSuccess' }, 'rolled-back'],
    [{ type: 'codon.skip' }, 'pass'],
    [{ type: 'codon.message' }, 'pass'],
    [{ type: 'checkpoint.diff' }, 'pass'],
    [{ type: 'approval.approve', codonId: 'design' }, 'pass'],
  ])('%j: %s', (command, expected) => {
    const turn = approvalTurn(WAIT, command);
    const got = turn.kind === 'end' ? turn.how : turn.kind;
    expect(got).toBe(expected);
  });

  it('a refusal names the codon and the three ways out', () => {
    const turn = approvalTurn(WAIT, { type: 'codon.start', codonId: 'build' });
    expect(turn).toEqual({
      kind: 'refuse',
      code: 'APPROVAL_REQUIRED',
      message:
        'codon.start of build is refused: waiting for approval of codon design (Design); approve it (approval.approve {"codonId":"design"}), request changes (review.submit to redo, or codon.redo), or roll back',
    });
  });

  it('approval.approve ends only the waiting codon’s wait, and says which one waits', () => {
    expect(approveCheck(WAIT, 'design')).toEqual({ ok: true, wait: WAIT });
    expect(approveCheck(WAIT, 'build')).toMatchObject({
      ok: false,
      code: 'NOTHING_TO_APPROVE',
      message: expect.stringContaining('codon design does'),
    });
    expect(approveCheck(undefined, 'design')).toMatchObject({
      ok: false,
      code: 'NOTHING_TO_APPROVE',
      message: expect.stringMatching(/^no codon waits for approval/),
    });
  });
});

const row = (type: string, data: unknown) => ({
  id: `e${Math.random()}`,
  runId: 'r1',
  type,
  timestamp: '2026-11-30T12:00:00.000Z',
  json: JSON.stringify({ type, data }),
});

describe('what an approval says', () => {
  it('the run goes on, or with autostart off, stays idle until the next codon is started', () => {
    expect(endedMessage('design', 'approved', 'client-3')).toBe(
      'codon design approved by client-3: the run goes on',
    );
    expect(endedMessage('design', 'approved', 'client-3', undefined, false)).toBe(
      'codon design approved by client-3; autostart is off, so the run stays idle until the next codon is started (codon.next)',
    );
    // Other ends say what takes over, whatever autostart is.
    expect(endedMessage('design', 'rolled-back', 'client-3', 'rollback.toCodon', false)).toBe(
      'the approval wait of codon design ends: rollback.toCodon by client-3 goes back',
    );
  });
});

describe('the approval wait a previous server left', () => {
  it('is the newest approval.waiting that nothing ended', () => {
    const j = new MemoryJournal();
    j.append([
      row('codon.started', { codonId: 'design' }),
      row('approval.waiting', { ...WAIT, message: 'w' }),
      row('info', { message: 'x' }),
    ]);
    expect(pendingApproval(j)).toEqual(WAIT);
  });

  it('is none once it ended or a codon started, in an empty journal, or when its row is unreadable', () => {
    const waiting = row('approval.waiting', { ...WAIT, message: 'w' });
    const ended = new MemoryJournal();
    ended.append([waiting, row('approval.ended', { codonId: 'design', how: 'approved', message: 'ok' })]);
    expect(pendingApproval(ended)).toBeUndefined();
    const started = new MemoryJournal();
    started.append([waiting, row('codon.started', { codonId: 'build' })]);
    expect(pendingApproval(started)).toBeUndefined();
    expect(pendingApproval(new MemoryJournal())).toBeUndefined();
    const bad = new MemoryJournal();
    bad.append([row('approval.waiting', { codonId: 'design' })]);
    expect(pendingApproval(bad)).toBeUndefined();
  });
});
