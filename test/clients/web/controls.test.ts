import { beforeEach, describe, expect, it } from 'vitest';
import { codonRange, undoneBy } from '../../../src/clients/model/checkpoint-range.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { reduceRun } from '../../../src/clients/model/store/reduce.ts';
import { initialRunState } from '../../../src/clients/model/store/run-state.ts';
import { checkpointLines } from '../../../src/clients/tui/view/content/checkpoint-lines.ts';
import { isTextEntry, keyCommand } from '../../../src/clients/web/keys.ts';
import { commandWords, echoesCommand, showsRollback } from '../../../src/clients/web/model/progress.ts';
import type { CheckpointInfo } from '../../../src/core/protocol/index.ts';
import { codonEnd, codonStart, resetCost, rollback, runStarted } from '../model/helpers/events.ts';

const cp = (
  codonId: string,
  checkpointType: CheckpointInfo['checkpointType'],
  sha: string,
  t: number,
): CheckpointInfo => ({
  codonId,
  codonName: codonId,
  checkpointType,
  sha,
  status: checkpointType === 'rig-setup' ? 'preparing' : 'completed',
  timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, t)).toISOString(),
});

beforeEach(() => resetCost());

describe('checkpoints of a codon and what a rollback undoes', () => {
  const checkpoints = [
    cp('', 'rig-setup', 'aaaa0000', 0),
    cp('one', 'rig-setup', 'bbbb0000', 1),
    cp('one', 'completed', 'cccc0000', 2),
    cp('two', 'rig-setup', 'dddd0000', 3),
    cp('two', 'completed', 'eeee0000', 4),
  ];
  const codons = foldEvents(initialRunState('ws://x'), [
    ...runStarted(),
    ...codonStart('one', 0),
    ...codonEnd('one', 'completed'),
    ...codonStart('two', 1),
    ...codonEnd('two', 'failed'),
  ]).codons;

  it("diffs a codon's start and end by default", () => {
    expect(codonRange(checkpoints, 'two')).toMatchObject({
      from: { sha: 'dddd0000' },
      to: { sha: 'eeee0000' },
    });
    expect(codonRange(checkpoints, 'three')).toEqual({});
    // Without a rig-setup checkpoint, a codon starts where the one before it ended (or the initial one).
    const plain = checkpoints.filter((c) => c.checkpointType !== 'rig-setup' || c.codonId === '');
    expect(codonRange(plain, 'one')).toMatchObject({ from: { sha: 'aaaa0000' }, to: { sha: 'cccc0000' } });
    expect(codonRange(plain, 'two')).toMatchObject({ from: { sha: 'cccc0000' }, to: { sha: 'eeee0000' } });
  });

  it('names the codons a rollback undoes', () => {
    expect(
      undoneBy({ kind: 'codon', codonId: 'one', checkpointType: 'start', label: '' }, codons, checkpoints),
    ).toEqual(['one', 'two']);
    expect(
      undoneBy({ kind: 'codon', codonId: 'one', checkpointType: 'end', label: '' }, codons, checkpoints),
    ).toEqual(['two']);
    expect(undoneBy({ kind: 'lastSuccess', label: '' }, codons, checkpoints)).toEqual(['two']);
    expect(undoneBy({ kind: 'checkpoint', sha: 'cccc', label: '' }, codons, checkpoints)).toEqual(['two']);
  });
});

describe('keys', () => {
  it('maps the TUI keys, and no control key in readonly', () => {
    expect(keyCommand('s', false)).toEqual({ kind: 'skip' });
    expect(keyCommand('s', true)).toBeUndefined();
    expect(keyCommand('b', true)).toBeUndefined();
    expect(keyCommand('3', true)).toEqual({ kind: 'view', view: 'changes' });
    expect(keyCommand('f', true)).toEqual({ kind: 'follow' });
    expect(keyCommand('toString', false)).toBeUndefined();
  });

  it('leaves only text entry alone: a checkbox, button or select keeps the keys working', () => {
    expect(isTextEntry({ tagName: 'INPUT', type: 'text' })).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT', type: 'search' })).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT', type: 'number' })).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT' })).toBe(true);
    expect(isTextEntry({ tagName: 'TEXTAREA' })).toBe(true);
    expect(isTextEntry({ tagName: 'DIV', isContentEditable: true })).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT', type: 'checkbox' })).toBe(false);
    expect(isTextEntry({ tagName: 'INPUT', type: 'radio' })).toBe(false);
    expect(isTextEntry({ tagName: 'BUTTON', type: 'button' })).toBe(false);
    expect(isTextEntry({ tagName: 'SELECT' })).toBe(false);
  });
});

describe('the progress line after a rollback (re-trial find)', () => {
  beforeEach(resetCost);
  const plan = () => [...runStarted(), ...codonStart('one', 0), ...codonEnd('one', 'completed')];

  it('shows the rollback the page asked for, then the next command the page sends', () => {
    let s = foldEvents(initialRunState('ws://x'), plan());
    s = reduceRun(s, {
      kind: 'commandSent',
      id: 'r1',
      type: 'rollback.toCodon',
      label: 'roll back',
      rollbackTarget: 'start of one',
    });
    expect(showsRollback(s.rollback, s.commands.at(-1))).toBe(true);
    s = foldEvents(s, rollback({ toCodon: 'one', checkpointType: 'start', undo: ['one'], toRun: 'run-2' }));
    expect(s.rollback.phase).toBe('completed');
    expect(showsRollback(s.rollback, s.commands.at(-1))).toBe(true);
    s = reduceRun(s, { kind: 'commandSent', id: 'n1', type: 'codon.next', label: 'start the next codon' });
    expect(showsRollback(s.rollback, s.commands.at(-1))).toBe(false);
  });

  it('a page loaded after a rollback it did not start leaves it out (trial 35b: "rollback completed 4/4")', () => {
    const s = foldEvents(initialRunState('ws://x'), [
      ...plan(),
      ...rollback({ toCodon: 'one', checkpointType: 'start', undo: ['one'], toRun: 'run-2' }),
    ]);
    expect(s.rollback.phase).toBe('completed');
    expect(showsRollback(s.rollback, s.commands.at(-1))).toBe(false);
  });

  it('says a command in a few words, on one line: the notice that repeats it is left out', () => {
    const sent = reduceRun(initialRunState('ws://x'), {
      kind: 'commandSent',
      id: 'c1',
      type: 'review.comment',
      label: 'comment on two a.ts',
    });
    const command = sent.commands.at(-1);
    expect(command && commandWords(command)).toBe('comment on two a.ts…');
    expect(echoesCommand(sent.notice?.text ?? '', command)).toBe(true);
    expect(commandWords({ id: 'c1', type: 'review.comment', label: 'x', status: 'answered' })).toBe(
      'comment saved: it goes with the next review',
    );
    expect(
      commandWords({
        id: 'c1',
        type: 'review.comment',
        label: 'comment on two a.ts',
        status: 'failed',
        error: 'UNKNOWN_COMMENT: no',
      }),
    ).toBe('comment on two a.ts: refused (UNKNOWN_COMMENT: no)');
  });

  it("leaves a restarted server's recovery out: nobody asked for a rollback (trial 30)", () => {
    const s = foldEvents(initialRunState('ws://x'), [
      ...plan(),
      ...codonStart('two', 1),
      ...rollback({
        toCodon: 'two',
        checkpointType: 'start',
        undo: ['two'],
        toRun: 'run-2',
        reason: 'recovery',
      }),
    ]);
    expect(s.rollback).toMatchObject({ phase: 'completed', cause: 'recovery' });
    expect(showsRollback(s.rollback, s.commands.at(-1))).toBe(false);
    expect(s.notice?.text).toMatch(/^recovered after the server stopped: back to two \(start\)/);
    const pane = checkpointLines(s.checkpoints, s.rollback, s.run, 80).map((l) => l.text);
    expect(pane[0]).toMatch(/^Recovered after the server stopped: back to two/);
    expect(pane.join('\n')).not.toMatch(/Rollback to/);
  });
});
