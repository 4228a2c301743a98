import React from 'react';
import { displayLine } from '../../model/display-text.ts';
import { formatTime, toolCallMark } from '../../model/format.ts';
import {
  ACTIVITY_KINDS,
  type ActivityKind,
  type ActivityRow,
  filterRows,
  type RowView,
} from '../model/activity-rows.ts';
import { languageOf } from '../model/highlight.ts';
import { fullDate } from '../model/time-words.ts';
import { Code } from './code.tsx';
import { VirtualList } from './virtual-list.tsx';

const ROW = 26;

type Props = {
  rows: RowView;
  codonIds: readonly string[];
  follow: boolean;
  onFollowChange: (follow: boolean) => void;
  /** Older rows the page let go (it keeps the newest MAX_ROWS). */
  dropped?: number;
  /** The initial history is folded (and so rendered with this): `data-synced` says so to tests and bench/web.ts. */
  synced: boolean;
};

/** Everything the run did, one row each, newest last; tool calls, messages and outputs expand. */
export function Activity({
  rows,
  codonIds,
  follow,
  onFollowChange,
  synced,
  dropped,
}: Props): React.ReactElement {
  const [codon, setCodon] = React.useState('');
  const [kinds, setKinds] = React.useState<ReadonlySet<ActivityKind>>(new Set(ACTIVITY_KINDS));
  const [expanded, setExpanded] = React.useState<ReadonlySet<string>>(new Set());
  const shown = React.useMemo(
    () => filterRows(rows, { ...(codon ? { codonId: codon } : {}), kinds }),
    [rows, codon, kinds],
  );
  const toggle = React.useCallback(
    (id: string) =>
      setExpanded((s) => {
        const next = new Set(s);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const keyOf = React.useCallback((r: ActivityRow) => r.id, []);
  const render = React.useCallback(
    (r: ActivityRow) => <Row row={r} open={expanded.has(r.id)} onToggle={toggle} />,
    [expanded, toggle],
  );
  return (
    <section className="activity" data-testid="view-activity" data-synced={synced ? 'true' : 'false'}>
      <div className="toolbar">
        <label>
          codon{' '}
          <select
            value={codon}
            onChange={(e) => setCodon(e.target.value)}
            data-testid="activity-filter-codon"
          >
            <option value="">all</option>
            {codonIds.map((id) => (
              <option key={id} value={id}>
                {displayLine(id)}
              </option>
            ))}
          </select>
        </label>
        {ACTIVITY_KINDS.map((k) => (
          <label key={k} className="chip">
            <input
              type="checkbox"
              checked={kinds.has(k)}
              data-testid={`activity-kind-${k}`}
              onChange={() =>
                setKinds((s) => {
                  const next = new Set(s);
                  if (!next.delete(k)) next.add(k);
                  return next;
                })
              }
            />
            {k}
          </label>
        ))}
        <label className="chip">
          <input
            type="checkbox"
            checked={follow}
            onChange={(e) => onFollowChange(e.target.checked)}
            data-testid="activity-follow"
          />
          follow (f)
        </label>
        <span className="muted" data-testid="activity-count">
          {shown.length} of {rows.length} rows
          {dropped ? ` (the newest; ${dropped} earlier not kept)` : ''}
        </span>
      </div>
      {rows.length === 0 ? (
        <div className="empty-state" data-testid="empty-activity">
          <b>Nothing has happened yet</b>
          The agents' messages, tool calls, file changes and sentinels' findings appear here, live, once a
          codon starts.
        </div>
      ) : shown.length === 0 ? (
        <div className="empty-state" data-testid="empty-activity">
          <b>No row matches the filters</b>
          Tick more kinds or pick “all” codons above.
        </div>
      ) : (
        <VirtualList
          items={shown}
          rowHeight={ROW}
          expanded={expanded}
          keyOf={keyOf}
          render={render}
          follow={follow}
          onFollowChange={onFollowChange}
          testId="activity-list"
        />
      )}
    </section>
  );
}

/** A tool's input is JSON; a file row's content reads as its file. */
function detailLanguage(row: ActivityRow): string | undefined {
  if (row.kind === 'tool') return 'json';
  if (row.kind === 'file' && row.path) return languageOf(row.path);
  return undefined;
}

/** What a tool read is the file it read; other tools' output (a shell's) stays plain. */
function resultLanguage(row: ActivityRow): string | undefined {
  return row.toolName === 'Read' && row.path ? languageOf(row.path) : undefined;
}

/** A tool call's mark, in the words of every view (format.ts): done, failed, ended with the codon, running. */
function ToolMark({ row }: { row: ActivityRow }) {
  const mark = toolCallMark(row);
  const tone = mark.state === 'failed' ? 'bad' : mark.state === 'running' ? 'tone-accent' : 'muted';
  return (
    <span className={tone} data-testid="tool-mark" data-state={mark.state}>
      {' '}
      {mark.text}
    </span>
  );
}

const Row = React.memo(function Row({
  row,
  open,
  onToggle,
}: {
  row: ActivityRow;
  open: boolean;
  onToggle: (id: string) => void;
}) {
  const expandable = row.detail !== undefined || row.result !== undefined;
  return (
    <div className={`arow tone-${row.tone} kind-${row.kind}`} data-testid="activity-row" data-kind={row.kind}>
      <div className="aline">
        {expandable ? (
          <button
            type="button"
            className="toggle"
            aria-expanded={open}
            onClick={() => onToggle(row.id)}
            data-testid={row.kind === 'tool' ? 'tool-toggle' : 'row-toggle'}
          >
            {open ? '▾' : '▸'}
          </button>
        ) : (
          <span className="toggle" />
        )}
        <time className="time" dateTime={row.at} title={fullDate(row.at)}>
          {formatTime(row.at)}
        </time>
        <span className="kind">{row.kind}</span>
        {row.codonId ? <span className="codon">{displayLine(row.codonId)}</span> : null}
        <span className="text">{displayLine(row.text)}</span>
        {row.kind === 'tool' ? <ToolMark row={row} /> : null}
        {row.action ? <span className="muted"> → {displayLine(row.action)}</span> : null}
      </div>
      {open ? (
        <div className="detail">
          {row.detail !== undefined ? (
            <>
              <div className="label">{row.kind === 'tool' ? 'input' : 'content'}</div>
              <Code text={row.detail} language={detailLanguage(row)} />
            </>
          ) : null}
          {row.result ? (
            <>
              <div className="label">
                result
                {row.result.truncated ? ` (truncated from ${row.result.originalLength} characters)` : ''}
              </div>
              <Code
                text={row.result.text}
                language={row.result.isError ? undefined : resultLanguage(row)}
                testId="tool-result"
                {...(row.result.isError ? { className: 'bad' } : {})}
              />
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
});
