import { describe, expect, it } from 'vitest';
import {
  downsample,
  EMPTY_SERIES,
  foldSeries,
  niceMax,
  stepPath,
} from '../../../src/clients/web/model/chart-series.ts';
import { type DiffFile, splitRows, unifiedRows } from '../../../src/clients/web/model/diff-layout.ts';
import {
  bottomScroll,
  isAtBottom,
  rowAt,
  rowOffset,
  visibleRange,
} from '../../../src/clients/web/model/window-math.ts';
import { ev } from '../model/helpers/fake-client.ts';

const file: DiffFile = {
  path: 'a.txt',
  status: 'modified',
  binary: false,
  additions: 3,
  deletions: 1,
  hunks: [
    {
      oldStart: 4,
      oldLines: 3,
      newStart: 4,
      newLines: 5,
      lines: [
        { kind: 'context', text: 'keep' },
        { kind: 'del', text: 'old' },
        { kind: 'add', text: 'new 1' },
        { kind: 'add', text: 'new 2' },
        { kind: 'context', text: 'keep too' },
        { kind: 'add', text: 'tail' },
      ],
    },
  ],
};

describe('diff layout', () => {
  it('numbers unified rows on the side each line exists on', () => {
    expect(unifiedRows(file)).toEqual([
      { kind: 'hunk', text: '@@ -4,3 +4,5 @@' },
      { kind: 'context', oldNo: 4, newNo: 4, text: 'keep', index: 0, hunk: 0 },
      { kind: 'del', oldNo: 5, text: 'old', index: 1, hunk: 0 },
      { kind: 'add', newNo: 5, text: 'new 1', index: 2, hunk: 0 },
      { kind: 'add', newNo: 6, text: 'new 2', index: 3, hunk: 0 },
      { kind: 'context', oldNo: 6, newNo: 7, text: 'keep too', index: 4, hunk: 0 },
      { kind: 'add', newNo: 8, text: 'tail', index: 5, hunk: 0 },
    ]);
  });

  it('faces deletions with the additions after them side by side, blanks for the rest', () => {
    const rows = splitRows(file);
    expect(rows.map((r) => (r.kind === 'hunk' ? r.text : [r.left?.text ?? '', r.right?.text ?? '']))).toEqual(
      [
        '@@ -4,3 +4,5 @@',
        ['keep', 'keep'],
        ['old', 'new 1'],
        ['', 'new 2'],
        ['keep too', 'keep too'],
        ['', 'tail'],
      ],
    );
    expect(rows[2]).toMatchObject({
      left: { no: 5, kind: 'del', index: 1 },
      right: { no: 5, kind: 'add', index: 2 },
    });
    // A context line is one line of the file, on both sides.
    expect(rows[1]).toMatchObject({ hunk: 0, left: { index: 0 }, right: { index: 0 } });
  });
});

describe('virtual window', () => {
  const heights = new Map([[2, 100]]);
  it('offsets rows past a taller one', () => {
    expect(rowOffset(2, 20, heights)).toBe(40);
    expect(rowOffset(3, 20, heights)).toBe(140);
    expect(rowAt(139, 10, 20, heights)).toBe(2);
    expect(rowAt(140, 10, 20, heights)).toBe(3);
  });

  it('renders only the rows on screen (plus overscan) of 100 000', () => {
    const r = visibleRange({
      count: 100_000,
      rowHeight: 24,
      heights: new Map(),
      scrollTop: 24 * 50_000,
      viewportHeight: 480,
      overscan: 5,
    });
    expect(r).toEqual({ start: 49_995, end: 50_026, offset: 49_995 * 24, total: 2_400_000 });
    expect(r.end - r.start).toBeLessThan(40);
  });

  it('clamps a scroll past the end and handles an empty list; follows at the bottom', () => {
    const r = visibleRange({
      count: 10,
      rowHeight: 20,
      heights,
      scrollTop: 9_999,
      viewportHeight: 100,
      overscan: 0,
    });
    expect(r).toMatchObject({ end: 10, total: 280 });
    expect(
      visibleRange({ count: 0, rowHeight: 20, heights, scrollTop: 0, viewportHeight: 100, overscan: 3 }),
    ).toEqual({ start: 0, end: 0, offset: 0, total: 0 });
    expect(bottomScroll(280, 100)).toBe(180);
    expect(isAtBottom(170, 280, 100, 20)).toBe(true);
    expect(isAtBottom(100, 280, 100, 20)).toBe(false);
  });
});

describe('chart series', () => {
  const usage = (codonId: string, cost: number, output: number) =>
    ev('token.usage', {
      codonId,
      inputTokens: 10,
      outputTokens: output,
      cacheCreationTokens: 0,
      cacheReadTokens: 0,
      totalCost: cost,
    });

  it('counts agent and sentinel spend apart, per codon and cumulatively, across attempts', () => {
    const s = foldSeries(EMPTY_SERIES, [
      usage('one', 0.1, 100),
      usage('one', 0.3, 300),
      ev('sentinel.output', {
        sentinelId: 'w',
        codonId: 'one',
        triggerNumber: 1,
        outputType: 'text',
        content: 'ok',
        cost: 0.05,
        tokens: { input: 1, output: 2 },
        eventCount: 1,
      }),
      // A second attempt starts from zero.
      ev('codon.started', {
        codonId: 'one',
        codonName: 'One',
        sessionId: 's',
        startTime: '2025-01-01T00:00:00Z',
      }),
      usage('one', 0.2, 50),
      usage('two', 1, 10),
    ]);
    expect(s.perCodon.one).toEqual({ agent: 0.5, sentinels: 0.05, input: 21, output: 352 });
    expect(s.totals.agent).toBeCloseTo(1.5);
    expect(s.points.map((p) => Math.round(p.agent * 100) / 100)).toEqual([0.1, 0.3, 0.3, 0.5, 1.5]);
    expect(s.points.map((p) => p.sentinels)).toEqual([0, 0, 0.05, 0.05, 0.05]);
    expect(s.codonOrder).toEqual(['one', 'two']);
  });

  it('draws a step path in its box, downsamples keeping the last point, picks a nice maximum', () => {
    const points = [
      { t: 0, v: 1 },
      { t: 50, v: 2 },
    ];
    expect(stepPath(points, (p) => p.v, { t0: 0, t1: 100, max: 2, width: 100, height: 10 })).toBe(
      'M0,10 L0,10 L0,5 L50,5 L50,0 L100,0',
    );
    const many = Array.from({ length: 1000 }, (_, i) => i);
    const few = downsample(many, 10);
    expect(few).toHaveLength(10);
    expect(few.at(-1)).toBe(999);
    expect([niceMax(0), niceMax(0.13), niceMax(3), niceMax(7)]).toEqual([1, 0.2, 5, 10]);
  });
});
