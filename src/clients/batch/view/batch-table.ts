import { Box, Text, useInput } from 'ink';
import React from 'react';
import { useNow } from '../../hooks/use-now.ts';
import { displayLine } from '../../model/display-text.ts';
import { LineText } from '../../tui/components/line-text.ts';
import { type Size, useTerminalSize } from '../../tui/hooks/use-terminal-size.ts';
import { makeTheme, ThemeContext, useTheme } from '../../tui/theme.ts';
import type { KeyInfo } from '../../tui/view/keymap.ts';
import { type Line, windowLines, wrapLine } from '../../tui/view/lines.ts';
import type { BatchSummary } from '../summary-schema.ts';
import {
  type BatchEffect,
  type BatchView,
  batchHelpLines,
  handleBatchKey,
  keyLine,
  selectedJob,
} from './batch-keys.ts';
import { jobDetail, MARK_WIDTH, tableLines, tableRows } from './job-table.ts';
import { batchProgress, progressSegments, type Segment, titleSegments } from './progress.ts';

const h = React.createElement;

export type BatchTableProps = {
  /** The batch as its summary.json says now; undefined until the runner wrote the first. */
  summary: BatchSummary | undefined;
  /** Fixed terminal size (tests); the real terminal's otherwise. */
  size?: Size;
  /** Colour on (default) or off (NO_COLOR). */
  color?: boolean;
  /** The view to start from (the one left when a job's TUI opened); the first job selected otherwise. */
  initialView?: BatchView;
  /** Enter on a running job. */
  onOpen(jobId: string, url: string, view: BatchView): void;
  /** q or Ctrl-C: each press asks the batch to stop, as Ctrl-C on a batch without the table does. */
  onStop(): void;
};

// The title and the progress bar above the table, its column titles, and the key line below (the
// status line, one or two lines, besides).
const CHROME_LINES = 4;

/**
 * The live table of a batch: a header (name, state, jobs in each state, a progress bar, the spend
 * against the budget), one row per job with the selection highlighted and kept in view, and a
 * footer with news (or the selected job) above the keys.
 */
export function BatchTable(props: BatchTableProps): React.ReactElement {
  const { summary } = props;
  const size = useTerminalSize(props.size);
  const theme = React.useMemo(() => makeTheme(props.color ?? true), [props.color]);
  const now = useNow(1_000, summary?.state === 'running');
  const [view, setView] = React.useState<BatchView>(props.initialView ?? {});
  // Keys can come faster than renders: each must see the view the previous one left (as the TUI's App).
  const viewRef = React.useRef(view);
  // The window's first row, kept between frames so that moving the selection scrolls only at the edges.
  const topRef = React.useRef(0);

  const jobs = React.useMemo(() => [...(summary?.jobs ?? [])].sort((a, b) => a.index - b.index), [summary]);
  const table = React.useMemo(
    () => (summary ? tableRows(summary, new Date(now), size.width) : undefined),
    [summary, now, size.width],
  );
  const selected = selectedJob(view, jobs);
  // News may take two lines (what reads a job that no longer runs is a command with a path); the
  // selected job, one.
  const status: Line[] = view.notice
    ? wrapLine({ text: displayLine(view.notice.text), tone: view.notice.tone }, size.width, 2)
    : [{ text: selected ? jobDetail(selected) : '', tone: 'muted' }];
  const rowsHeight = Math.max(1, size.height - CHROME_LINES - status.length);

  const latest = React.useRef({ jobs, props, rowsHeight });
  latest.current = { jobs, props, rowsHeight };
  const onKey = React.useCallback((input: string, key: KeyInfo) => {
    const { jobs, props, rowsHeight } = latest.current;
    const outcome = handleBatchKey(viewRef.current, input, key, {
      jobs,
      batchDir: props.summary?.dir ?? '.',
      pageSize: Math.max(1, rowsHeight - 1),
    });
    viewRef.current = outcome.view;
    setView(outcome.view);
    for (const effect of outcome.effects) run(effect, outcome.view, props);
  }, []);
  useInput(onKey);

  let body: React.ReactElement[];
  if (view.modal?.kind === 'help') {
    // The help takes the column titles' and the status line's rows too.
    const lines = batchHelpLines(displayLine(summary?.dir ?? ''));
    const window = windowLines(lines, rowsHeight + 1 + status.length, 'top', 0);
    body = window.lines.map((line, i) => h(LineText, { key: i, line }));
  } else if (!table) {
    body = [
      h(Text, { key: 'wait', color: theme.tone('muted') }, 'waiting for the batch to write its summary…'),
    ];
  } else {
    const lines = tableLines(table, selected?.id);
    const at = selected ? table.rows.findIndex((r) => r.id === selected.id) : -1;
    const window = windowLines(lines, rowsHeight, 'top', topRef.current, at === -1 ? undefined : at);
    topRef.current = window.above;
    const more = [window.above > 0 ? `↑${window.above}` : '', window.below > 0 ? `↓${window.below}` : '']
      .filter(Boolean)
      .join(' ');
    const head = `${' '.repeat(MARK_WIDTH)}${table.header}`;
    const room = size.width - more.length - 1;
    body = [
      h(
        Text,
        { key: 'columns', wrap: 'truncate-end', bold: true, color: theme.tone('muted') },
        more ? `${head.slice(0, Math.max(0, room)).padEnd(room)} ${more}` : head,
      ),
      ...window.lines.map((line, i) => h(LineText, { key: i, line })),
    ];
  }

  const progress = summary ? batchProgress(summary) : undefined;
  return h(
    ThemeContext.Provider,
    { value: theme },
    h(
      Box,
      { flexDirection: 'column', width: size.width, height: size.height },
      h(SegmentLine, {
        segments:
          summary && progress
            ? titleSegments(summary, progress, size.width)
            : [{ text: 'Ribosome batch', tone: 'accent', bold: true }],
      }),
      h(SegmentLine, { segments: progress ? progressSegments(progress, size.width) : [{ text: ' ' }] }),
      h(Box, { flexDirection: 'column', flexGrow: 1, overflow: 'hidden' }, ...body),
      ...(view.modal ? [] : status.map((line, i) => h(LineText, { key: `status-${i}`, line }))),
      h(Text, { wrap: 'truncate-end', color: theme.tone('muted') }, keyLine(size.width, view.modal?.kind)),
    ),
  );
}

function run(effect: BatchEffect, view: BatchView, props: BatchTableProps): void {
  if (effect.kind === 'open') props.onOpen(effect.jobId, effect.url, view);
  else props.onStop();
}

/** One line of toned stretches, cut at the right edge. */
function SegmentLine({ segments }: { segments: readonly Segment[] }): React.ReactElement {
  const theme = useTheme();
  return h(
    Text,
    { wrap: 'truncate-end' },
    ...segments.map((s, i) =>
      h(Text, { key: i, color: theme.tone(s.tone), bold: s.bold === true }, s.text || ''),
    ),
  );
}
