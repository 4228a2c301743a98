import { describe, expect, it } from 'vitest';
import { type CarryEvent, carryOver, readCarryWindow } from '../../src/engine/carry-over.ts';
import { MemoryJournal } from '../../src/execution/journal/memory-journal.ts';

const you = { kind: 'client', clientId: 'c1' } as const;
const sentinel = (sentinelId: string) => ({ kind: 'sentinel', sentinelId }) as const;

const started = (codonId: string): CarryEvent => ({ type: 'codon.started', data: { codonId } });
const completed = (codonId: string, success = true): CarryEvent => ({
  type: 'codon.completed',
  data: { codonId, success },
});
const said = (
  codonId: string,
  text: string,
  delivery: 'live' | 'next-turn' | 'prompt' = 'live',
  from: { kind: 'client'; clientId: string } | { kind: 'sentinel'; sentinelId: string } = you,
): CarryEvent => ({ type: 'codon.message', data: { codonId, text, from, delivery } });
const redo = (codonId: string, sentinelId: string, text?: string, dryRun = false): CarryEvent => ({
  type: 'sentinel.action',
  data: {
    sentinelId,
    codonId,
    triggerNumber: 1,
    action: 'redo',
    dryRun,
    reason: 'x',
    ...(text ? { text } : {}),
  },
});
const actionFailed = (codonId: string, sentinelId: string): CarryEvent => ({
  type: 'sentinel.error',
  data: { sentinelId, codonId, errorType: 'action-failed', message: 'redo failed: no' },
});
const crashWarning = (codonId: string): CarryEvent => ({
  type: 'error',
  data: { codon: codonId, code: 'RUN_CRASHED', message: 'the server stopped', fatal: false },
});

const carried = (events: CarryEvent[]) => Object.fromEntries(carryOver(events));

describe('carryOver (what a crash must not lose)', () => {
  it('a run the crash interrupted: its live and next-turn messages, in order, with their senders', () => {
    const events = [started('a'), said('a', 'first'), said('a', 'second', 'next-turn', sentinel('s'))];
    const expected = {
      a: [
        { text: 'first', from: you },
        { text: 'second', from: sentinel('s') },
      ],
    };
    expect(carried(events)).toEqual(expected);
    // The same after the restarted server journaled the crash (RUN_CRASHED, then codon.completed).
    expect(carried([...events, crashWarning('a'), completed('a', false)])).toEqual(expected);
  });

  it('a run that ended (no crash) carries nothing; nor does a dry-run or failed redo', () => {
    expect(carried([started('a'), said('a', 'heard'), completed('a')])).toEqual({});
    expect(carried([started('a'), said('a', 'heard'), completed('a', false)])).toEqual({});
    expect(carried([started('a'), redo('a', 's', 'dry', true), completed('a', false)])).toEqual({});
    expect(
      carried([started('a'), redo('a', 's', 'Try again'), completed('a', false), actionFailed('a', 's')]),
    ).toEqual({});
    expect(carried([])).toEqual({});
  });

  it('a redo the crash interrupted, wherever: its text once, from the sentinel; what the agent heard before it is dropped', () => {
    const head = [started('w'), said('w', 'old news'), redo('w', 'redoer', 'Do it better.')];
    const expected = { w: [{ text: 'Do it better.', from: sentinel('redoer') }] };
    // Before the codon's end was recorded.
    expect(carried(head)).toEqual(expected);
    expect(carried([...head, crashWarning('w'), completed('w', false)])).toEqual(expected);
    // After its end, during the rollback.
    expect(carried([...head, completed('w', false)])).toEqual(expected);
    // After the redo's prompt message was journaled, before its codon.started: once, not twice.
    expect(
      carried([...head, completed('w', false), said('w', 'Do it better.', 'prompt', sentinel('redoer'))]),
    ).toEqual(expected);
    // Its new run started and ended: delivered.
    const ran = [
      ...head,
      completed('w', false),
      said('w', 'Do it better.', 'prompt', sentinel('redoer')),
      started('w'),
    ];
    expect(carried([...ran, completed('w')])).toEqual({});
    // Its new run crashed: the prompt's text and what that run heard, again.
    expect(carried([...ran, said('w', 'and this')])).toEqual({
      w: [
        { text: 'Do it better.', from: sentinel('redoer') },
        { text: 'and this', from: you },
      ],
    });
  });

  it('texts carried once already are carried again when the run that got them crashes too', () => {
    const events = [
      said('a', 'first', 'prompt'),
      started('a'),
      said('a', 'later'),
      crashWarning('a'),
      completed('a', false),
    ];
    expect(carried(events)).toEqual({
      a: [
        { text: 'first', from: you },
        { text: 'later', from: you },
      ],
    });
    // Another codon's events leave them alone.
    expect(carried([...events, started('b'), said('b', 'b hears'), completed('b')])).toEqual({
      a: [
        { text: 'first', from: you },
        { text: 'later', from: you },
      ],
    });
  });

  it('readCarryWindow reads from the codon.completed before the newest codon.started, over runs', () => {
    const journal = new MemoryJournal();
    let i = 0;
    const append = (runId: string, e: CarryEvent) =>
      journal.append([
        {
          id: `e${++i}`,
          timestamp: '',
          runId,
          type: e.type,
          json: JSON.stringify({ type: e.type, data: e.data }),
        },
      ]);
    expect([...readCarryWindow(journal)]).toEqual([]);
    append('r1', started('a'));
    append('r1', said('a', 'for a'));
    append('r1', completed('a'));
    append('r1', { type: 'info', data: { message: 'not read' } });
    append('r2', said('b', 'prompt of b', 'prompt'));
    append('r2', started('b'));
    append('r2', said('b', 'live to b'));
    expect([...readCarryWindow(journal)].map((e) => e.type)).toEqual([
      'codon.message',
      'codon.started',
      'codon.message',
    ]);
    expect(
      carryOver(readCarryWindow(journal))
        .get('b')
        ?.map((m) => m.text),
    ).toEqual(['prompt of b', 'live to b']);
  });
});
