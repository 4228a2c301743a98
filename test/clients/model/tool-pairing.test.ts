/**
 * Tool calls paired with their results by id, and closed when their codon ends (issue 30 M1): the
 * terminal UI's store and the dashboard's activity rows fold the same histories to the same pairs.
 */
import { describe, expect, it } from 'vitest';
import { ENDED_FROM_OUTSIDE } from '../../../src/agents/stream-line.ts';
import { toolCallMark } from '../../../src/clients/model/format.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { type ActivityEntry, initialRunState } from '../../../src/clients/model/store/run-state.ts';
import { activityLines } from '../../../src/clients/tui/view/content/activity-lines.ts';
import { type ActivityRow, EMPTY_LOG, foldActivity } from '../../../src/clients/web/model/activity-rows.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { codonEnd, codonStart, runStarted, toolCall, toolDone, transition } from './helpers/events.ts';

type Call = { summary: string; mark: string; result?: string };

/** The tool calls the terminal UI shows, in order: what each says, its mark, its result's text. */
function tuiCalls(events: readonly ServerEvent[]): Call[] {
  const state = foldEvents(initialRunState('ws://x'), events);
  return state.activity.flatMap((e: ActivityEntry) =>
    e.kind === 'tool'
      ? [{ summary: `${e.toolName} ${e.summary}`, mark: toolCallMark(e).text, result: e.result?.text }]
      : [],
  );
}

/** The same, from the dashboard's rows, folded in batches of `batch` events (live pages get a few at a time). */
function webCalls(events: readonly ServerEvent[], batch = events.length): Call[] {
  let log = EMPTY_LOG;
  for (let i = 0; i < events.length; i += batch) log = foldActivity(log, events.slice(i, i + batch));
  const rows: ActivityRow[] = [];
  for (let i = 0; i < log.rows.length; i++) {
    const row = log.rows.at(i);
    if (row?.kind === 'tool') rows.push(row);
  }
  return rows.map((r) => ({ summary: r.text, mark: toolCallMark(r).text, result: r.result?.text }));
}

/** Both views agree, whole or in batches of one. */
function calls(events: readonly ServerEvent[]): Call[] {
  const tui = tuiCalls(events);
  expect(webCalls(events)).toEqual(tui);
  expect(webCalls(events, 1)).toEqual(tui);
  return tui;
}

const ENDED = '· ended with the codon';
const sleep = 'sleep 8; echo slow-done';
const bash = (command: string, id?: string) => toolCall('a', 'Bash', command, { command }, id);
const done = (text: string, id: string, ms = 42) => toolDone('a', 'Bash', text, false, id, ms);
const crashed = (codonId: string): ServerEvent[] => [
  transition('RunCrashed', { detectedAt: new Date().toISOString() }),
  ...codonEnd(codonId, 'failed'),
];

describe('tool calls paired by id (issue 30 M1)', () => {
  it("a call a crash cut short ends with the codon; the next attempt's calls get their own results", () => {
    const events = [
      ...runStarted(),
      ...codonStart('a', 0),
      bash(sleep, 'toolu_killed'),
      // kill -9 here; the restarted server records the crash, then the codon runs again.
      ...crashed('a'),
      ...codonStart('a', 0),
      bash(sleep, 'toolu_sleep'),
      done('slow-done', 'toolu_sleep', 8_000),
      bash('echo quick-done', 'toolu_quick'),
      done('quick-done', 'toolu_quick', 23),
      ...codonEnd('a', 'completed'),
    ];
    expect(calls(events)).toEqual([
      { summary: `Bash ${sleep}`, mark: ENDED, result: undefined },
      { summary: `Bash ${sleep}`, mark: '✓ 8.0s', result: 'slow-done' },
      { summary: 'Bash echo quick-done', mark: '✓ 23ms', result: 'quick-done' },
    ]);
  });

  it('pairs results that come in another order than their calls', () => {
    const events = [
      ...codonStart('a', 0),
      bash('one', 'toolu_1'),
      bash('two', 'toolu_2'),
      done('second', 'toolu_2'),
      done('first', 'toolu_1'),
    ];
    expect(calls(events).map((c) => c.result)).toEqual(['first', 'second']);
  });

  it("gives a repeated id's result to its latest waiting call (a scripted provider replaying on a redo)", () => {
    const events = [
      ...codonStart('a', 0),
      bash('step', 'toolu_same'),
      ...codonEnd('a', 'stopped'),
      ...codonStart('a', 0),
      bash('step', 'toolu_same'),
      done('again', 'toolu_same'),
    ];
    expect(calls(events)).toEqual([
      { summary: 'Bash step', mark: ENDED, result: undefined },
      { summary: 'Bash step', mark: '✓ 42ms', result: 'again' },
    ]);
  });

  it('pairs calls without an id (older journals) with the oldest waiting call of the same tool', () => {
    const events = [
      ...codonStart('a', 0),
      bash('one'),
      bash('two'),
      toolCall('a', 'Read', 'x.txt', { file_path: 'x.txt' }),
      toolDone('a', 'Read', 'x'),
      done('first', 'toolu_unknown_1'),
    ];
    expect(calls(events).map((c) => [c.summary, c.result])).toEqual([
      ['Bash one', 'first'],
      ['Bash two', undefined],
      ['Read x.txt', 'x'],
    ]);
  });

  it('never gives a result to a call with another id', () => {
    const events = [...codonStart('a', 0), bash('mine', 'toolu_mine'), done('other', 'toolu_other')];
    expect(calls(events)).toEqual([
      { summary: 'Bash mine', mark: '… running', result: undefined },
      { summary: 'Bash (call not seen)', mark: '✓ 42ms', result: 'other' },
    ]);
  });

  it("a result that agents' translators make up for a call cut short reads ended with the codon, not failed", () => {
    const events = [
      ...codonStart('a', 0),
      bash('sleep 300', 'item_1'),
      toolDone('a', 'Bash', ENDED_FROM_OUTSIDE, true, 'item_1'),
      ...codonEnd('a', 'stopped'),
    ];
    expect(calls(events)).toEqual([{ summary: 'Bash sleep 300', mark: ENDED, result: undefined }]);
  });
});

describe('a call still waiting when its codon ends (issue 30 M1)', () => {
  const open = (end: ServerEvent[]) => [
    ...runStarted(),
    ...codonStart('a', 0),
    bash('sleep 300', 'toolu_open'),
    ...codonStart('b', 1),
    toolCall('b', 'Bash', 'sleep 1', { command: 'sleep 1' }, 'toolu_b'),
    ...end,
  ];

  for (const to of ['completed', 'failed', 'stopped', 'skipped'] as const)
    it(`ends with it when the codon is ${to}, and only that codon's calls`, () => {
      expect(calls(open(codonEnd('a', to))).map((c) => c.mark)).toEqual([ENDED, '… running']);
    });

  it('ends with it when a new attempt of the codon starts', () => {
    expect(calls(open(codonStart('a', 0))).map((c) => c.mark)).toEqual([ENDED, '… running']);
  });

  it('ends with it when the restarted server records the crash', () => {
    const marks = tuiCalls(open([transition('RunCrashed', { detectedAt: new Date().toISOString() })]));
    // Both codons were running when the server died (the store says so for each).
    expect(marks.map((c) => c.mark)).toEqual([ENDED, ENDED]);
  });

  it('the terminal UI says so on the call line and in its detail', () => {
    const state = foldEvents(initialRunState('ws://x'), [...open(codonEnd('a', 'completed'))]);
    const call = state.activity.find((e) => e.kind === 'tool' && e.codonId === 'a');
    const made = activityLines(state.activity, {
      width: 100,
      expanded: { [call?.id ?? '']: true },
    }).lines.slice();
    const texts = made.map((l) => l.text);
    expect(texts.find((t) => t.includes('sleep 300'))).toMatch(/Bash sleep 300 +· ended with the codon$/);
    expect(texts).toContain('        (no result: ended with the codon)');
  });
});
