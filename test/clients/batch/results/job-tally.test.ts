import { describe, expect, it } from 'vitest';
import { emptyTally, foldJob } from '../../../../src/clients/batch/results/job-tally.ts';
import { makeEvent, type ServerEvent } from '../../../../src/core/protocol/index.ts';

/** The tallies of the journal's events, apart from what the store makes of them (job-metrics.e2e covers that). */

const started = (codonId: string) =>
  makeEvent('codon.started', {
    codonId,
    codonName: codonId,
    sessionId: `s-${codonId}`,
    startTime: new Date().toISOString(),
  });
const gateStarted = (codonId: string, gate: number, gates: number, round: number) =>
  makeEvent('verify.started', { codonId, gate, gates, command: `gate ${gate}`, cwd: '.', round });
const gateDone = (codonId: string, gate: number, round: number, passed: boolean) =>
  makeEvent('verify.completed', {
    codonId,
    gate,
    command: `gate ${gate}`,
    round,
    passed,
    exitCode: passed ? 0 : 1,
    timedOut: false,
    durationMs: 5,
    outputTail: '',
  });
const action = (dryRun: boolean) =>
  makeEvent('sentinel.action', {
    sentinelId: 's',
    codonId: 'a',
    triggerNumber: 1,
    action: 'message',
    dryRun,
    reason: 'r',
    text: 't',
  });

const fold = (...batches: ServerEvent[][]) => batches.reduce(foldJob, emptyTally());
const firstTry = (t: ReturnType<typeof fold>) =>
  Object.entries(t.firstRounds).map(([id, r]) => `${id}:${r.state}`);

describe('foldJob', () => {
  it('first-try gates: every gate of the first round passed; a failed or cut-short first round is missed', () => {
    const t = fold([
      started('a'),
      gateStarted('a', 0, 2, 0),
      gateDone('a', 0, 0, true),
      gateStarted('a', 1, 2, 0),
      gateDone('a', 1, 0, true),
      started('b'),
      gateStarted('b', 0, 1, 0),
      gateDone('b', 0, 0, false),
      // Its feedback round passes: a retry, not a first try.
      gateStarted('b', 0, 1, 1),
      gateDone('b', 0, 1, true),
      started('c'),
      gateStarted('c', 0, 2, 0),
      gateDone('c', 0, 0, true),
      // The server stopped before gate 2 ended; the restarted codon's gates start over.
      started('c'),
      gateStarted('c', 0, 2, 0),
      gateDone('c', 0, 0, true),
      gateStarted('c', 1, 2, 0),
      gateDone('c', 1, 0, true),
    ]);
    expect(firstTry(t)).toEqual(['a:passed', 'b:missed', 'c:missed']);
    expect(t.feedbackRounds).toBe(1);
    expect(t.starts).toEqual({ a: 1, b: 1, c: 2 });
  });

  it('counts sentinel actions that acted (not dry runs) and folds in batches as in one', () => {
    const events = [started('a'), action(false), action(true), action(false), started('a')];
    const whole = fold(events);
    const parts = fold(events.slice(0, 2), [], events.slice(2));
    expect(whole.sentinelActions).toBe(2);
    for (const t of [whole, parts]) {
      expect(t.sentinelActions).toBe(2);
      expect(t.starts).toEqual({ a: 2 });
      expect(t.lastStarted).toBe('a');
    }
    expect(parts.lastLine).toEqual(whole.lastLine);
    expect(whole.lastLine).toMatchObject({ id: events.at(-1)?.id, type: 'codon.started', text: '▶ a: a' });
  });

  it('a codon named like an Object property (constructor, toString) is counted as any other', () => {
    const t = fold([
      started('constructor'),
      started('constructor'),
      gateStarted('toString', 0, 1, 0),
      gateDone('toString', 0, 0, true),
    ]);
    expect(t.starts).toEqual({ constructor: 2 });
    expect(firstTry(t)).toEqual(['toString:passed']);
  });

  it('leaves the tally it folds into as it was', () => {
    const before = fold([started('a')]);
    const copy = structuredClone(before);
    foldJob(before, [started('a'), action(false), gateStarted('a', 0, 1, 0)]);
    expect(before).toEqual(copy);
  });
});
