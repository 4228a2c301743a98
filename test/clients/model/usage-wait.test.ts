import { beforeEach, describe, expect, it } from 'vitest';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { initialRunState, type RunState } from '../../../src/clients/model/store/run-state.ts';
import { runWord } from '../../../src/clients/model/store/selectors.ts';
import {
  clockAt,
  timeLeft,
  USAGE_WAIT_WORD,
  usageLimitFailure,
  usageWaitRecord,
  usageWaitState,
  usageWaitText,
} from '../../../src/clients/model/usage-wait.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { codonEnd, codonStart, resetCost, rollback, runStarted, transition } from './helpers/events.ts';
import { ev } from './helpers/fake-client.ts';

// Local times, so the clocks read the same in every time zone the tests run in.
const local = (day: number, h: number, m = 0, s = 0) => new Date(2026, 10, day, h, m, s);
const NOW = local(30, 12, 47).getTime();
const RESET = local(30, 15, 0).toISOString();
const UNTIL = local(30, 15, 1).toISOString();

describe('the usage-limit wait in words', () => {
  it('says the reset as a local clock: the time today, the day within a week, else the date', () => {
    expect(clockAt(RESET, NOW)).toBe('15:00');
    expect(clockAt(local(30, 23, 59).toISOString(), NOW)).toBe('23:59');
    expect(clockAt(local(31, 0, 5).toISOString(), NOW)).toBe('Tue 00:05');
    expect(clockAt(new Date(2026, 11, 3, 9, 30).toISOString(), NOW)).toBe('Thu 09:30');
    expect(clockAt(new Date(2026, 11, 9, 9, 30).toISOString(), NOW)).toBe('2026-12-09 09:30');
    // Seconds when they matter: a reset minutes away.
    expect(clockAt(local(30, 12, 50, 30).toISOString(), NOW)).toBe('12:50:30');
    expect(clockAt('not a time', NOW)).toBe('not a time');
  });

  it('counts the time left in hours and minutes, minutes, seconds; past due is any moment now', () => {
    const s = 1_000;
    const m = 60 * s;
    const h = 60 * m;
    expect(timeLeft(2 * h + 13 * m + 20 * s)).toBe('in 2 h 13 m');
    expect(timeLeft(3 * h)).toBe('in 3 h');
    expect(timeLeft(45 * m)).toBe('in 45 m');
    // The last ten minutes tick by the second.
    expect(timeLeft(4 * m + 5 * s)).toBe('in 4 m 5 s');
    expect(timeLeft(45 * s)).toBe('in 45 s');
    // Rounded up: never "in 0 s" while time is left.
    expect(timeLeft(200)).toBe('in 1 s');
    expect(timeLeft(50 * h)).toBe('in 2 d 2 h');
    expect(timeLeft(0)).toBe('any moment now');
    expect(timeLeft(-5 * s)).toBe('any moment now');
    expect(timeLeft(Number.NaN)).toBe('any moment now');
  });

  it('says the wait in one line, counted down to when the codon starts again, and shorter for a narrow screen', () => {
    const wait = { codonId: 'two', agent: 'claude-code', resetsAt: RESET, until: UNTIL };
    const at = local(30, 12, 46, 40).getTime();
    expect(usageWaitText(wait, at)).toBe(
      'waiting for the usage limit of claude-code to reset at 15:00; starts again at 15:01 (in 2 h 14 m)',
    );
    expect(usageWaitText(wait, at, { short: true })).toBe(
      'usage limit: resets 15:00, starts 15:01 (in 2 h 14 m)',
    );
    // Past the reset, in the margin before the codon starts again: still counted down; then due.
    expect(usageWaitText(wait, local(30, 15, 0, 30).getTime())).toBe(
      'waiting for the usage limit of claude-code to reset at 15:00; starts again at 15:01 (in 30 s)',
    );
    expect(usageWaitText(wait, local(30, 15, 1, 5).getTime())).toBe(
      'waiting for the usage limit of claude-code to reset at 15:00; starts again at 15:01 (any moment now)',
    );
    // No reset time given: the time it tries again, counted down.
    const probe = { codonId: 'two', agent: 'codex', until: local(30, 13, 2).toISOString() };
    expect(usageWaitText(probe, NOW)).toBe(
      'waiting for the usage limit of codex (no reset time given): trying again at 13:02 (in 15 m)',
    );
    expect(usageWaitText(probe, NOW, { short: true })).toBe('usage limit: tries again 13:02 (in 15 m)');
    // A weekly limit, reset the day after.
    const weekly = { ...wait, resetsAt: local(31, 9, 0).toISOString(), until: local(31, 9, 1).toISOString() };
    expect(usageWaitText(weekly, NOW)).toBe(
      'waiting for the usage limit of claude-code to reset at Tue 09:00; starts again at Tue 09:01 (in 20 h 14 m)',
    );
  });

  it('says it without a countdown for records, and a usage-limit failure in a few words', () => {
    const wait = { codonId: 'two', agent: 'gemini', resetsAt: RESET, until: UNTIL };
    expect(usageWaitRecord(wait, NOW)).toBe(
      'two waits for the usage limit of gemini to reset at 15:00, then starts again at 15:01',
    );
    expect(usageWaitState(wait, NOW)).toBe('waiting for usage limit until 15:01');
    expect(usageLimitFailure({ type: 'usage-limit', retriable: true, resetsAt: RESET }, NOW)).toBe(
      'usage limit (resets 15:00)',
    );
    expect(usageLimitFailure({ type: 'usage-limit', retriable: true }, NOW)).toBe('usage limit');
    expect(usageLimitFailure({ type: 'rate-limit', retriable: true }, NOW)).toBeUndefined();
  });
});

beforeEach(() => resetCost());

const fold = (events: ServerEvent[], state: RunState = initialRunState('ws://x')) =>
  foldEvents(state, events);

/** The codon failing on a usage limit, as the engine reports it: its transition, then codon.completed. */
function limited(codonId: string): ServerEvent[] {
  const failureReason = {
    type: 'usage-limit' as const,
    retriable: true,
    message: "You've hit your limit · resets 3pm",
    resetsAt: RESET,
  };
  return [
    transition('CodonTransitioned', {
      codonId,
      from: 'running',
      to: 'failed',
      at: new Date().toISOString(),
      duration: 1_000,
      failureReason,
    }),
    ev('codon.completed', {
      codonId,
      success: false,
      cost: 0.01,
      duration: 1_000,
      exitStatus: { type: 'error', code: 1 },
      failureReason,
    }),
  ];
}

const waiting = (codonId = 'two') =>
  ev('usageLimit.waiting', {
    codonId,
    agent: 'claude-code',
    resetsAt: RESET,
    until: UNTIL,
    waitMs: 8_040_000,
    detail: "You've hit your limit · resets 3pm",
    message: `${codonId} waits for the usage limit of claude-code to reset`,
  });
const ended = (how: 'reset' | 'command', codonId = 'two') =>
  ev('usageLimit.ended', {
    codonId,
    how,
    ...(how === 'command' ? { command: 'codon.next' } : {}),
    message: 'the wait ended',
  });
const snapshot = (usageLimitWait?: { codonId: string; agent: string; resetsAt?: string; until: string }) =>
  ev('state.snapshot', {
    completedCodons: [],
    fileTree: [],
    totalCost: 0,
    totalTime: 0,
    isRollingBack: false,
    ...(usageLimitWait ? { usageLimitWait } : {}),
  });

const WAIT = { codonId: 'two', agent: 'claude-code', resetsAt: RESET, until: UNTIL };

describe('the usage-limit wait in the store', () => {
  it('begins with usageLimit.waiting: the run waits, the codon says so, a line says until when', () => {
    const s = fold([...runStarted(), ...codonStart('two', 1), ...limited('two'), waiting()]);
    expect(s.run.usageWait).toEqual(WAIT);
    expect(s.codons.two).toMatchObject({ status: 'failed', note: USAGE_WAIT_WORD });
    expect(runWord(s.run)).toBe(USAGE_WAIT_WORD);
    expect(s.activity.at(-1)).toMatchObject({
      kind: 'note',
      tone: 'warn',
      text: expect.stringMatching(
        /^◷ two waits for the usage limit of claude-code to reset at (?:\w{3} |\d{4}-\d\d-\d\d )?\d\d:\d\d, then starts again at/,
      ),
    });
    expect(s.notice).toEqual({ text: 'two waits for the usage limit of claude-code to reset', tone: 'warn' });
  });

  it('ends with usageLimit.ended, however it ended, and says how', () => {
    for (const how of ['reset', 'command'] as const) {
      const s = fold([...runStarted(), ...codonStart('two', 1), ...limited('two'), waiting(), ended(how)]);
      expect(s.run.usageWait).toBeUndefined();
      expect(s.codons.two?.status).toBe('failed');
      expect(s.codons.two?.note).toBeUndefined();
      expect(runWord(s.run)).not.toBe(USAGE_WAIT_WORD);
      expect(s.activity.at(-1)?.kind === 'note' && s.activity.at(-1)).toMatchObject({
        text: `▷ two: the usage-limit wait ended (${how === 'reset' ? 'its time came' : 'codon.next took over'})`,
      });
    }
  });

  it('ends when a codon starts, without an ended event (the same codon again, or another one)', () => {
    const same = fold([
      ...runStarted(),
      ...codonStart('two', 1),
      ...limited('two'),
      waiting(),
      ...codonStart('two', 1),
    ]);
    expect(same.run.usageWait).toBeUndefined();
    expect(same.codons.two).toMatchObject({ status: 'running', attempts: 2 });
    expect(same.codons.two?.note).toBeUndefined();
    // codon.started alone (a server that sends no transitions) ends it too.
    const other = fold([
      ...runStarted(),
      ...codonStart('two', 1),
      ...limited('two'),
      waiting(),
      ev('codon.started', {
        codonId: 'three',
        codonName: 'three',
        sessionId: 's',
        startTime: new Date().toISOString(),
      }),
    ]);
    expect(other.run.usageWait).toBeUndefined();
    expect(other.codons.two).toMatchObject({ status: 'failed' });
    expect(other.codons.two?.note).toBeUndefined();
  });

  it('folds the same whatever comes first: waiting before the codon ended, or for a codon not started yet', () => {
    const early = fold([...runStarted(), ...codonStart('two', 1), waiting(), ...limited('two')]);
    expect(early.run.usageWait).toEqual(WAIT);
    expect(early.codons.two).toMatchObject({ status: 'failed', note: USAGE_WAIT_WORD });
    // A codon about to start with an agent known to be limited: it waits pending.
    const pending = fold([...runStarted(), waiting('three')]);
    expect(pending.codons.three).toMatchObject({ status: 'pending', note: USAGE_WAIT_WORD });
    // An end before any wait, and a second wait (a restarted server waits again): the latest holds.
    const again = fold([...runStarted(), ended('reset'), waiting('two'), waiting('three')]);
    expect(again.run.usageWait?.codonId).toBe('three');
    expect(again.codons.two?.note).toBeUndefined();
    expect(again.codons.three?.note).toBe(USAGE_WAIT_WORD);
  });

  it('learns a wait in progress from state.snapshot (a client connecting mid-wait), and its end from one without', () => {
    const joined = fold([snapshot(WAIT)]);
    expect(joined.run.usageWait).toEqual(WAIT);
    expect(joined.codons.two?.note).toBe(USAGE_WAIT_WORD);
    const same = fold([snapshot(WAIT)], joined);
    expect(same.codons).toBe(joined.codons);
    const over = fold([snapshot()], joined);
    expect(over.run.usageWait).toBeUndefined();
    expect(over.codons.two?.note).toBeUndefined();
  });

  it('ends with the run: completed, failed, crashed, or a new run begun', () => {
    for (const type of ['RunCompleted', 'RunFailed', 'RunCrashed'] as const) {
      const s = fold([
        ...runStarted(),
        ...codonStart('two', 1),
        ...limited('two'),
        waiting(),
        transition(
          type,
          type === 'RunCrashed'
            ? { detectedAt: new Date().toISOString() }
            : { endedAt: new Date().toISOString() },
        ),
      ]);
      expect(s.run.usageWait, type).toBeUndefined();
      expect(s.codons.two?.note, type).toBeUndefined();
    }
  });

  it('ends with a rollback: the codons it undoes are pending again, none of them waiting', () => {
    const s = fold([
      ...runStarted(),
      ...codonStart('one', 0),
      ...codonEnd('one', 'completed'),
      ...codonStart('two', 1),
      ...limited('two'),
      waiting(),
      ...rollback({ toCodon: 'one', checkpointType: 'end', undo: ['two'], toRun: 'run-2' }),
    ]);
    expect(s.run.usageWait).toBeUndefined();
    expect(s.codons.two).toMatchObject({ status: 'pending', note: 'undone' });
    // Already at rollback.started, before the new run begins.
    const started = fold([
      ...runStarted(),
      ...codonStart('two', 1),
      ...limited('two'),
      waiting(),
      ...rollback({ toCodon: 'one', checkpointType: 'end', undo: ['two'], toRun: 'run-3' }).slice(0, 1),
    ]);
    expect(started.run.usageWait).toBeUndefined();
  });
});
