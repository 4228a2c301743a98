import React from 'react';
import { bottomScroll, isAtBottom, visibleRange } from '../model/window-math.ts';

/** What the list reads: an array, or any list read by index (the activity rows' chunked list). */
export type Items<T> = { readonly length: number; at(index: number): T | undefined };

type Props<T> = {
  items: Items<T>;
  rowHeight: number;
  /** Rows whose height differs (expanded ones): measured after render. */
  expanded: ReadonlySet<string>;
  keyOf: (item: T) => string;
  render: (item: T, index: number) => React.ReactNode;
  follow: boolean;
  onFollowChange: (follow: boolean) => void;
  testId?: string;
};

/**
 * A windowed list: only the rows on screen (and a few beyond) are in the DOM, placed by the window
 * math; collapsed rows have one height, expanded rows are measured. In follow mode it stays at the
 * bottom as rows come; scrolling up leaves follow mode, scrolling back to the bottom re-enters it.
 */
export function VirtualList<T>(props: Props<T>): React.ReactElement {
  const { items, rowHeight, expanded, keyOf, render, follow, onFollowChange } = props;
  const outer = React.useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = React.useState(0);
  const [viewport, setViewport] = React.useState(600);
  const [measured, setMeasured] = React.useState<ReadonlyMap<string, number>>(new Map());

  // Heights by index, for the expanded rows only (a handful).
  const heights = React.useMemo(() => {
    const out = new Map<number, number>();
    if (expanded.size === 0) return out;
    for (let i = 0; i < items.length; i++) {
      const key = keyOf(items.at(i) as T);
      if (expanded.has(key)) out.set(i, measured.get(key) ?? rowHeight);
    }
    return out;
  }, [items, expanded, measured, keyOf, rowHeight]);

  const range = visibleRange({
    count: items.length,
    rowHeight,
    heights,
    scrollTop,
    viewportHeight: viewport,
    overscan: 8,
  });

  React.useLayoutEffect(() => {
    const el = outer.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setViewport(el.clientHeight));
    observer.observe(el);
    setViewport(el.clientHeight);
    return () => observer.disconnect();
  }, []);

  React.useLayoutEffect(() => {
    const el = outer.current;
    if (!el || !follow) return;
    const bottom = bottomScroll(range.total, el.clientHeight);
    if (Math.abs(el.scrollTop - bottom) > 1) {
      el.scrollTop = bottom;
      setScrollTop(el.scrollTop);
    }
  }, [follow, range.total]);

  const onScroll = () => {
    const el = outer.current;
    if (!el) return;
    setScrollTop(el.scrollTop);
    const atBottom = isAtBottom(el.scrollTop, range.total, el.clientHeight, rowHeight);
    if (atBottom !== follow) onFollowChange(atBottom);
  };

  const measure = React.useCallback((key: string, el: HTMLDivElement | null) => {
    if (!el) return;
    const h = el.getBoundingClientRect().height;
    setMeasured((m) => (Math.abs((m.get(key) ?? -1) - h) < 0.5 ? m : new Map(m).set(key, h)));
  }, []);

  const rows: React.ReactNode[] = [];
  for (let i = range.start; i < range.end; i++) {
    const item = items.at(i) as T;
    const key = keyOf(item);
    const open = expanded.has(key);
    rows.push(
      <div
        key={key}
        className="vrow"
        ref={open ? (el) => measure(key, el) : undefined}
        style={open ? undefined : { height: rowHeight }}
      >
        {render(item, i)}
      </div>,
    );
  }
  return (
    <div
      className="vlist"
      ref={outer}
      onScroll={onScroll}
      data-testid={props.testId}
      data-rows={items.length}
    >
      <div style={{ height: range.total, position: 'relative' }}>
        <div style={{ position: 'absolute', top: range.offset, left: 0, right: 0 }}>{rows}</div>
      </div>
    </div>
  );
}
