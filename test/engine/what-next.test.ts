import { describe, expect, it } from 'vitest';
import { notDoneReason, unwrittenCheckpoint } from '../../src/clients/cli/console-view.ts';
import { doneVerdict } from '../../src/core/protocol/idle-verdict.ts';
import { buildSnapshot } from '../../src/engine/snapshot.ts';
import {
  automaticNext,
  decide,
  type EndStatus,
  idleEvent,
  isPassedOver,
  lineageOf,
  nextCodon,
  progress,
  recoveryCodon,
  recoveryTarget,
  redoCodon,
  type Trigger,
} from '../../src/engine/what-next.ts';
import type { CheckpointRecord } from '../../src/execution/checkpoints/index.ts';
import { type EngineState, reduceAll } from '../../src/execution/state/reducer.ts';
import type { Transition } from '../../src/execution/state/transitions.ts';

const PLAN = [{ id: 'one' }, { id: 'two' }, { id: 'three' }];
const at = '2026-01-01T00:00:00.000Z';

/**
 * A tiny history language: `one completed` (a codon runs and ends), `two failed unwritten` (its
 * ending checkpoint could not be written), `two crash` (the server dies while it runs), `two rig` (a
 * codon starts and takes its rig-setup checkpoint), `rollback <sha> [startOf]` (a new run from that
 * checkpoint).
 * Checkpoint shas are `<run>:<codon>:<type>` so a step can name one.
 */
function history(steps: string[]): EngineState {
  const transitions: Transition[] = [];
  let run = 'r1';
  let runs = 1;
  transitions.push({ type: 'RunStarted', data: { runId: run, startedAt: at, reason: 'start' } });
  transitions.push({ type: 'InitialCheckpointSet', data: { runId: run, sha: `${run}:init` } });
  const statuses = new Map<string, string>();
  const checkpoint = (
    codonId: string,
    type: 'rig-setup' | 'completed' | 'error' | 'skipped',
    status: string,
  ) =>
    transitions.push({
      type: 'CheckpointCreated',
      data: {
        runId: run,
        checkpoint: {
          codonId,
          codonName: codonId,
          checkpointType: type,
          sha: `${run}:${codonId}:${type}`,
          status: status as EndStatus,
          timestamp: at,
        },
      },
    });
  const begin = (codonId: string) => {
    transitions.push({
      type: 'CodonStarted',
      data: {
        runId: run,
        codonId,
        codonName: codonId,
        codonIndex: Math.max(
          0,
          PLAN.findIndex((c) => c.id === codonId),
        ),
        sessionId: 's',
        startTime: at,
      },
    });
    statuses.set(`${run}/${codonId}`, 'preparing');
  };
  const move = (codonId: string, to: string) => {
    const from = statuses.get(`${run}/${codonId}`) ?? 'preparing';
    transitions.push({
      type: 'CodonTransitioned',
      data: { runId: run, codonId, from, to, at },
    } as Transition);
    statuses.set(`${run}/${codonId}`, to);
  };
  for (const step of steps) {
    const [a, b, c] = step.split(' ');
    if (a === 'rollback' && b) {
      transitions.push({ type: 'RunCompleted', data: { runId: run, endedAt: at } });
      const [fromRunId] = b.split(':');
      run = `r${++runs}`;
      transitions.push({
        type: 'RunStarted',
        data: {
          runId: run,
          startedAt: at,
          reason: 'rollback',
          fromRunId,
          fromCheckpoint: b,
          ...(c ? { startOf: c } : {}),
        },
      });
      transitions.push({ type: 'InitialCheckpointSet', data: { runId: run, sha: `${run}:init` } });
      continue;
    }
    if (!a) continue;
    if (b === 'rig') {
      begin(a);
      checkpoint(a, 'rig-setup', 'preparing');
      continue;
    }
    if (statuses.get(`${run}/${a}`) !== 'preparing') begin(a);
    move(a, 'running');
    if (b === 'crash') {
      transitions.push({ type: 'RunCrashed', data: { runId: run, detectedAt: at, codonId: a } });
      continue;
    }
    const type = b === 'completed' ? 'completed' : b === 'skipped' ? 'skipped' : 'error';
    if (c !== 'unwritten') checkpoint(a, type, b ?? 'completed');
    move(a, b ?? 'completed');
  }
  return reduceAll(transitions);
}

const lineage = (steps: string[]) => lineageOf(history(steps));

describe('what runs next: codon.next', () => {
  it.each([
    { steps: [], next: 'one' },
    { steps: ['one completed'], next: 'two' },
    { steps: ['one completed', 'two failed'], next: 'two' },
    { steps: ['one completed', 'two stopped'], next: 'two' },
    { steps: ['one completed', 'two skipped'], next: 'three' },
    { steps: ['one completed', 'two completed', 'three completed'], next: undefined },
    { steps: ['three completed'], next: 'one' },
    { steps: ['one completed', 'one failed'], next: 'one' },
    { steps: ['one failed', 'one completed'], next: 'two' },
    {
      steps: ['one completed', 'two completed', 'three completed', 'rollback r1:one:completed'],
      next: 'two',
    },
    {
      steps: [
        'one completed',
        'two rig',
        'two completed',
        'three completed',
        'rollback r1:two:rig-setup two',
      ],
      next: 'two',
    },
    { steps: ['one completed', 'two completed', 'rollback r1:init'], next: 'one' },
    {
      steps: [
        'one completed',
        'two completed',
        'rollback r1:one:completed',
        'two failed',
        'rollback r1:two:completed',
      ],
      next: 'three',
    },
  ])('after $steps: $next', ({ steps, next }) => {
    expect(nextCodon(PLAN, lineage(steps))?.id).toBe(next);
  });
});

describe('what runs next: codon.redo', () => {
  it.each([
    { steps: [], redo: undefined },
    { steps: ['one completed'], redo: 'one' },
    { steps: ['one completed', 'two failed'], redo: 'two' },
    { steps: ['one completed', 'three completed'], redo: 'three' },
    // Right after a rollback to a codon's start: that codon (the third scenario).
    {
      steps: ['one completed', 'two completed', 'three completed', 'rollback r1:one:completed two'],
      redo: 'two',
    },
    // After a rollback to a codon's end: the codon that ended last in the lineage.
    {
      steps: ['one completed', 'two completed', 'three completed', 'rollback r1:one:completed'],
      redo: 'one',
    },
    // Once the new run has started a codon, the start no longer counts.
    {
      steps: ['one completed', 'two completed', 'rollback r1:one:completed two', 'three completed'],
      redo: 'three',
    },
    { steps: ['one completed', 'rollback r1:init one'], redo: 'one' },
  ])('after $steps: $redo', ({ steps, redo }) => {
    expect(redoCodon(lineage(steps))).toBe(redo);
  });
});

describe('a codon whose ending checkpoint could not be written (a full checkpoint store)', () => {
  const plan = { name: 'p', codons: PLAN };

  it.each([
    { steps: ['one completed', 'two failed unwritten'], last: 'two failed', next: 'two', done: 1 },
    // Run again after it completed: the earlier ending no longer stands.
    {
      steps: ['one completed', 'two completed', 'two failed unwritten'],
      last: 'two failed',
      next: 'two',
      done: 1,
    },
    {
      steps: ['one completed', 'two failed', 'two failed unwritten'],
      last: 'two failed',
      next: 'two',
      done: 1,
    },
    // Written again once space was freed: that ending counts.
    {
      steps: ['one completed', 'two failed unwritten', 'two completed'],
      last: 'two completed',
      next: 'three',
      done: 2,
    },
  ])('after $steps, server.idle names $last as the last ending', ({ steps, last, next, done }) => {
    const on = lineage(steps);
    const event = idleEvent('codon-completed', plan, on);
    const [codonId, status] = last.split(' ');
    expect(event.lastEnded).toEqual({ codonId, status });
    expect(event.nextCodonId).toBe(next);
    expect(progress(PLAN, on).done).toBe(done);
    expect(redoCodon(on)).toBe(codonId);
  });

  it('ends an --exit-when-done run (exit 1) with the cause, where it waited for ever', () => {
    const event = idleEvent('codon-completed', plan, lineage(['one completed', 'two failed unwritten']));
    expect(doneVerdict(event, false)).toBe(false);
    const cause = 'disk full at /x/.ribosome/checkpoints.git: No space left on device';
    const unwritten = unwrittenCheckpoint({
      message: `the completed checkpoint of codon two could not be written: ${cause}`,
      codon: 'two',
      fatal: false,
      severity: 'codon',
      code: 'CHECKPOINT_FAILED',
    });
    expect(unwritten).toEqual({ codonId: 'two', cause });
    expect(notDoneReason(event, { type: 'unknown', retriable: false }, undefined, unwritten)).toBe(
      `a checkpoint could not be written: ${cause}`,
    );
    // Another codon's checkpoint says nothing about this failure.
    const other = { codonId: 'one', cause };
    expect(notDoneReason(event, undefined, undefined, other)).toBe('a codon failed');
  });

  it.each([
    {
      code: 'CHECKPOINT_FAILED',
      codon: undefined,
      message: 'the rig-setup checkpoint of codon two could not be written: x',
    },
    {
      code: 'CHECKPOINT_FAILED',
      codon: 'two',
      message: 'the retry of codon two is cancelled: its start checkpoint could not be restored: x',
    },
    {
      code: 'CODON_FAILED',
      codon: 'two',
      message: 'the completed checkpoint of codon two could not be written: x',
    },
  ])('an error that is no unwritten checkpoint: $code $message', ({ code, codon, message }) => {
    const data = { message, fatal: false, severity: 'codon' as const, code, ...(codon ? { codon } : {}) };
    expect(unwrittenCheckpoint(data)).toBeUndefined();
  });

  it("a crash's interrupted codon is not an ending: the next server recovers it", () => {
    const crashed = lineageOf(history(['one completed', 'two crash']), 'r1');
    expect(crashed.endings).toEqual([{ codonId: 'one', status: 'completed' }]);
  });
});

describe('what runs next: the decision after a start, an end, a rollback', () => {
  const some = lineage(['one completed']);
  const all = lineage(['one completed', 'two completed', 'three completed']);
  const cases: Array<{ trigger: Trigger; on: typeof some; expected: unknown }> = [
    { trigger: { kind: 'startup', autostart: true }, on: some, expected: { start: 'two' } },
    { trigger: { kind: 'startup', autostart: false }, on: some, expected: { idle: 'startup' } },
    { trigger: { kind: 'startup', autostart: true }, on: all, expected: { idle: 'all-codons-completed' } },
    { trigger: { kind: 'startup', autostart: false }, on: all, expected: { idle: 'all-codons-completed' } },
    {
      trigger: { kind: 'codon-ended', status: 'completed', autostart: true },
      on: some,
      expected: { start: 'two' },
    },
    {
      trigger: { kind: 'codon-ended', status: 'completed', autostart: false },
      on: some,
      expected: { idle: 'codon-completed' },
    },
    {
      trigger: { kind: 'codon-ended', status: 'skipped', autostart: false },
      on: some,
      expected: { start: 'two' },
    },
    {
      trigger: { kind: 'codon-ended', status: 'failed', autostart: true },
      on: some,
      expected: { idle: 'codon-completed' },
    },
    {
      trigger: { kind: 'codon-ended', status: 'stopped', autostart: true },
      on: some,
      expected: { idle: 'codon-completed' },
    },
    {
      trigger: { kind: 'codon-ended', status: 'completed', autostart: true },
      on: all,
      expected: { idle: 'all-codons-completed' },
    },
    { trigger: { kind: 'rollback', autoRestart: true }, on: some, expected: { start: 'two' } },
    { trigger: { kind: 'rollback', autoRestart: false }, on: some, expected: { idle: 'codon-completed' } },
    { trigger: { kind: 'rollback', autoRestart: true }, on: all, expected: { idle: 'all-codons-completed' } },
  ];
  it.each(cases)('$trigger -> $expected', ({ trigger, on, expected }) => {
    const decision = decide(trigger, PLAN, on);
    expect('start' in decision ? { start: decision.start.id } : decision).toEqual(expected);
  });
});

describe('what runs next after a failure passed over (onFailure then: continue)', () => {
  const CONTINUE = { onFailure: { then: 'continue' as const } };
  const plan = [{ id: 'one' }, { id: 'two', ...CONTINUE }, { id: 'three' }];
  const ended = (status: EndStatus, passOver = false): Trigger => ({
    kind: 'codon-ended',
    status,
    autostart: false,
    ...(passOver ? { passOver } : {}),
  });

  it('goes on past the failed codon, whatever autostart says', () => {
    const on = lineage(['one completed', 'two failed']);
    const decision = decide(ended('failed', true), plan, on);
    expect('start' in decision && decision.start.id).toBe('three');
    expect(decide(ended('failed'), plan, on)).toEqual({ idle: 'codon-completed' });
  });

  it('does not come back to it by itself, but codon.next names it', () => {
    const on = lineage(['one completed', 'two failed', 'three completed']);
    expect(isPassedOver(on, plan[1]!)).toBe(true);
    expect(automaticNext(plan, on)).toBeUndefined();
    expect(decide({ kind: 'codon-ended', status: 'completed', autostart: true }, plan, on)).toEqual({
      idle: 'codon-completed',
    });
    expect(nextCodon(plan, on)?.id).toBe('two');
    expect(redoCodon(on)).toBe('three');
  });

  it('says the plan ran to its end past it (so --exit-when-done exits 1)', () => {
    const event = idleEvent(
      'codon-completed',
      { name: 'p', codons: plan },
      lineage(['one completed', 'two failed', 'three completed']),
    );
    expect(event).toMatchObject({ nextCodonId: 'two', passedOver: ['two'] });
    expect(event.message).toBe(
      'idle; three completed; two failed and passed over; 2 of 3 codons done; codon.next starts two, codon.redo runs three',
    );
    expect(doneVerdict(event, false)).toBe(false);
  });

  it('--exit-when-done stops (exit 1) when a budget holds the run after a success, not only after a failure', () => {
    const held = { reason: 'codon-completed' as const, message: 'held', nextCodonId: 'three' };
    const last = { codonId: 'two', status: 'completed' as const };
    expect(doneVerdict({ ...held, lastEnded: last }, false)).toBeUndefined();
    expect(doneVerdict({ ...held, lastEnded: last, heldBy: 'budget' }, false)).toBe(false);
  });

  it('the exit summary says a budget stopped the run (which one when said), a stop, or a failure', () => {
    const idle = { reason: 'codon-completed' as const, message: 'idle', nextCodonId: 'two' };
    const failed = { ...idle, lastEnded: { codonId: 'two', status: 'failed' as const } };
    const spent = 'plan budget exceeded: maxCostUsd 1.00, spent 1.04';
    const budget = { type: 'budget' as const, retriable: false, message: spent };
    expect(notDoneReason({ ...failed, heldBy: 'budget' }, budget, spent)).toBe(spent);
    expect(notDoneReason(failed, budget, undefined)).toBe('budget exceeded');
    // Held after a success: the warning that said it gave the message.
    const completed = { ...idle, lastEnded: { codonId: 'one', status: 'completed' as const } };
    expect(notDoneReason({ ...completed, heldBy: 'budget' }, undefined, spent)).toBe(spent);
    expect(notDoneReason(failed, { type: 'api-error', retriable: false }, undefined)).toBe('a codon failed');
    const stopped = { ...idle, lastEnded: { codonId: 'two', status: 'stopped' as const } };
    expect(notDoneReason(stopped, { type: 'unknown', retriable: false }, undefined)).toBe(
      'a codon was stopped',
    );
  });

  it('is done once it runs again and completes; a codon without then: continue is never passed over', () => {
    expect(isPassedOver(lineage(['one completed', 'two failed', 'two completed']), plan[1]!)).toBe(false);
    expect(isPassedOver(lineage(['one failed']), plan[0]!)).toBe(false);
    const mid = idleEvent(
      'codon-completed',
      { name: 'p', codons: plan },
      lineage(['one completed', 'two failed']),
    );
    expect(mid.passedOver).toBeUndefined();
  });
});

describe('what runs next: a loop until verify', () => {
  // A loop of a, b (b has the gates) with 3 iterations, then `after`.
  const loop = (iteration: number, lastInIteration: boolean) => ({
    id: 'fix',
    iteration,
    iterations: 3,
    lastInIteration,
    until: 'verify' as const,
  });
  const LOOP = [0, 1, 2].flatMap((i) => [
    { id: `a#${i}`, loop: loop(i, false) },
    { id: `b#${i}`, loop: loop(i, true) },
  ]);
  const PLAN_WITH_LOOP = [...LOOP, { id: 'after' }];
  const CAPPED = PLAN_WITH_LOOP.map((c) =>
    'loop' in c ? { ...c, loop: { ...c.loop, until: undefined } } : c,
  );

  it.each([
    { steps: [], next: 'a#0', done: 0 },
    { steps: ['a#0 completed'], next: 'b#0', done: 1 },
    // Its gates passed: the loop ends, its later iterations are passed over.
    { steps: ['a#0 completed', 'b#0 completed'], next: 'after', done: 6 },
    // Its gates failed: that attempt is over, the next iteration is next.
    { steps: ['a#0 completed', 'b#0 failed'], next: 'a#1', done: 2 },
    { steps: ['a#0 completed', 'b#0 skipped'], next: 'a#1', done: 2 },
    // Stopped by a person: not an attempt that ended, it runs again.
    { steps: ['a#0 completed', 'b#0 stopped'], next: 'b#0', done: 1 },
    { steps: ['a#0 completed', 'b#0 failed', 'a#1 completed', 'b#1 completed'], next: 'after', done: 6 },
    // A later iteration ran: what an earlier one left is passed over.
    { steps: ['a#0 failed', 'a#1 completed'], next: 'b#1', done: 3 },
    // Any iteration's last codon completing ends the loop, earlier unfinished iterations included.
    { steps: ['a#0 failed', 'a#1 completed', 'b#1 completed'], next: 'after', done: 6 },
    { steps: ['a#0 completed', 'b#0 completed', 'after completed'], next: undefined, done: 7 },
    // A redo of the last codon that then fails reopens the loop at the next iteration.
    { steps: ['a#0 completed', 'b#0 completed', 'b#0 failed'], next: 'a#1', done: 2 },
    // The last iteration failing its gates: the cap is reached without a pass; it stays next.
    {
      steps: ['a#0 completed', 'b#0 failed', 'a#1 completed', 'b#1 failed', 'a#2 completed', 'b#2 failed'],
      next: 'b#2',
      done: 5,
    },
    // An intermediate codon of the loop completing does not end it.
    { steps: ['a#0 completed', 'b#0 skipped', 'a#1 completed'], next: 'b#1', done: 3 },
  ])('after $steps: $next ($done of 7 settled)', ({ steps, next, done }) => {
    const on = lineage(steps);
    expect(nextCodon(PLAN_WITH_LOOP, on)?.id).toBe(next);
    expect(progress(PLAN_WITH_LOOP, on)).toMatchObject({ done, total: 7, ...(next ? { next } : {}) });
  });

  it('a loop without until runs every iteration, and a failed codon stays next', () => {
    expect(nextCodon(CAPPED, lineage(['a#0 completed', 'b#0 completed']))?.id).toBe('a#1');
    expect(nextCodon(CAPPED, lineage(['a#0 completed', 'b#0 failed']))?.id).toBe('b#0');
  });

  it('autostart after the gates passed goes past the loop; the server says so when idle', () => {
    const on = lineage(['a#0 completed', 'b#0 completed']);
    expect(decide({ kind: 'codon-ended', status: 'completed', autostart: true }, PLAN_WITH_LOOP, on)).toEqual(
      {
        start: PLAN_WITH_LOOP.at(-1),
      },
    );
    expect(idleEvent('codon-completed', { name: 'p', codons: PLAN_WITH_LOOP }, on)).toMatchObject({
      nextCodonId: 'after',
      message: expect.stringContaining('6 of 7 codons done; codon.next starts after'),
    });
    // A failed attempt that is not the last: autostart goes on with the next iteration.
    const failed = (steps: string[]) =>
      decide({ kind: 'codon-ended', status: 'failed', autostart: true }, PLAN_WITH_LOOP, lineage(steps));
    expect(failed(['a#0 completed', 'b#0 failed'])).toEqual({ start: PLAN_WITH_LOOP[2] });
    expect(
      decide(
        { kind: 'codon-ended', status: 'failed', autostart: false },
        PLAN_WITH_LOOP,
        lineage(['a#0 completed', 'b#0 failed']),
      ),
    ).toEqual({ idle: 'codon-completed' });
    // Not inside an iteration, not after the last one, not in a loop without until.
    expect(failed(['a#0 failed'])).toEqual({ idle: 'codon-completed' });
    expect(
      failed(['a#0 completed', 'b#0 failed', 'a#1 completed', 'b#1 failed', 'a#2 completed', 'b#2 failed']),
    ).toEqual({ idle: 'codon-completed' });
    expect(
      decide(
        { kind: 'codon-ended', status: 'failed', autostart: true },
        CAPPED,
        lineage(['a#0 completed', 'b#0 failed']),
      ),
    ).toEqual({ idle: 'codon-completed' });
    const all = lineage(['a#0 completed', 'b#0 completed', 'after completed']);
    expect(
      decide({ kind: 'codon-ended', status: 'completed', autostart: true }, PLAN_WITH_LOOP, all),
    ).toEqual({
      idle: 'all-codons-completed',
    });
  });
});

describe('what the server says about it', () => {
  it('idles naming the next codon, the last ending, and redo when it differs', () => {
    const event = idleEvent(
      'codon-completed',
      { name: 'p', codons: PLAN },
      lineage(['one completed', 'three failed']),
    );
    expect(event).toMatchObject({ nextCodonId: 'two', lastEnded: { codonId: 'three', status: 'failed' } });
    expect(event.message).toBe(
      'idle; three failed; 1 of 3 codons done; codon.next starts two, codon.redo runs three',
    );
  });

  it('says the plan is done with no next codon', () => {
    const event = idleEvent(
      'all-codons-completed',
      { name: 'p', codons: PLAN },
      lineage(['one completed', 'two skipped', 'three completed']),
    );
    expect(event.nextCodonId).toBeUndefined();
    expect(event.message).toBe('all 3 codons of plan "p" are done');
  });

  it('counts progress over the lineage', () => {
    expect(progress(PLAN, lineage(['one completed', 'two failed']))).toEqual({
      done: 1,
      total: 3,
      next: 'two',
      lastEnded: { codonId: 'two', status: 'failed' },
    });
  });
});

describe('recovery of a crashed or failed run', () => {
  const record = (sha: string, codonId: string, type: CheckpointRecord['checkpointType'], initial = false) =>
    ({
      sha,
      codonId,
      codonName: codonId,
      checkpointType: type,
      status: 'completed',
      timestamp: at,
      runId: 'r1',
      initial,
      parentSha: null,
    }) as CheckpointRecord;

  it('returns to the latest clean point: a completed or skipped checkpoint, or the initial one', () => {
    const init = record('i', '', 'rig-setup', true);
    const one = record('a', 'one', 'completed');
    const twoRig = record('b', 'two', 'rig-setup');
    const twoSkipped = record('c', 'two', 'skipped');
    const threeError = record('d', 'three', 'error');
    expect(recoveryTarget([init, one, twoRig])?.sha).toBe('a');
    expect(recoveryTarget([init, one, twoSkipped, threeError])?.sha).toBe('c');
    expect(recoveryTarget([init, twoRig])?.sha).toBe('i');
    expect(recoveryTarget([])).toBeUndefined();
  });

  it('starts again the codon a crash interrupted, or the one that failed or was stopped last', () => {
    expect(recoveryCodon(lineage(['one completed']), 'two')).toBe('two');
    expect(recoveryCodon(lineage(['one completed', 'two failed']), undefined)).toBe('two');
    expect(recoveryCodon(lineage(['one completed', 'two stopped']), undefined)).toBe('two');
    expect(recoveryCodon(lineage(['one completed']), undefined)).toBeUndefined();
    // A run that began at two's start and died before running anything: back to two's start.
    expect(
      recoveryCodon(lineage(['one completed', 'two completed', 'rollback r1:one:completed two']), undefined),
    ).toBe('two');
  });
});

describe('state.snapshot over the lineage', () => {
  const statuses = (steps: string[]) =>
    buildSnapshot(history(steps), { fileTree: [], isRollingBack: false, now: 0 }).completedCodons.map(
      (c) => `${c.codonId}:${c.status}`,
    );

  it('shows what a resumed or rolled-back run inherited, then its own codons', () => {
    expect(statuses(['one completed', 'two failed'])).toEqual(['one:completed', 'two:failed']);
    expect(
      statuses(['one completed', 'two completed', 'three completed', 'rollback r1:one:completed two']),
    ).toEqual(['one:completed']);
    expect(
      statuses([
        'one completed',
        'two completed',
        'rollback r1:one:completed two',
        'two failed',
        'three completed',
      ]),
    ).toEqual(['one:completed', 'two:failed', 'three:completed']);
    // A codon run again after the checkpoint the lineage forked at shows as it ended there.
    expect(statuses(['one completed', 'one failed', 'rollback r1:one:completed'])).toEqual(['one:completed']);
  });
});
