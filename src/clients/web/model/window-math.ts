/**
 * The virtual window's arithmetic: rows have one height unless measured otherwise (an expanded
 * row), so a row's offset is `index * rowHeight` plus what the few taller rows before it add.
 */

export type WindowInput = {
  count: number;
  rowHeight: number;
  /** Measured heights of rows that differ from rowHeight, by index. */
  heights: ReadonlyMap<number, number>;
  scrollTop: number;
  viewportHeight: number;
  /** Rows rendered beyond each edge, so fast scrolling shows no gap. */
  overscan: number;
};

export type WindowRange = {
  /** First and one-past-last row to render. */
  start: number;
  end: number;
  /** Where the first rendered row sits, and the height of the whole list. */
  offset: number;
  total: number;
};

/** The top of row `index`. */
export function rowOffset(index: number, rowHeight: number, heights: ReadonlyMap<number, number>): number {
  let extra = 0;
  for (const [i, h] of heights) if (i < index) extra += h - rowHeight;
  return index * rowHeight + extra;
}

export function totalHeight(count: number, rowHeight: number, heights: ReadonlyMap<number, number>): number {
  return rowOffset(count, rowHeight, heights);
}

/** The last row whose top is at or above `y` (0 for an empty list). */
export function rowAt(
  y: number,
  count: number,
  rowHeight: number,
  heights: ReadonlyMap<number, number>,
): number {
  let lo = 0;
  let hi = Math.max(0, count - 1);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (rowOffset(mid, rowHeight, heights) <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function visibleRange(input: WindowInput): WindowRange {
  const { count, rowHeight, heights, scrollTop, viewportHeight, overscan } = input;
  const total = totalHeight(count, rowHeight, heights);
  if (count === 0) return { start: 0, end: 0, offset: 0, total };
  const top = Math.max(0, Math.min(scrollTop, Math.max(0, total - viewportHeight)));
  const first = rowAt(top, count, rowHeight, heights);
  const last = rowAt(top + viewportHeight, count, rowHeight, heights);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, last + 1 + overscan);
  return { start, end, offset: rowOffset(start, rowHeight, heights), total };
}

/** The scrollTop that shows the end of the list (follow mode). */
export function bottomScroll(total: number, viewportHeight: number): number {
  return Math.max(0, total - viewportHeight);
}

/** Follow mode stays on while the view is at (or within a row of) the bottom. */
export function isAtBottom(scrollTop: number, total: number, viewportHeight: number, slack: number): boolean {
  return scrollTop + viewportHeight >= total - slack;
}
