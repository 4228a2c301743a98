import React from 'react';
import type { BrowserClient } from '../../../core/client/browser.ts';
import type { ReviewSide } from '../../../core/protocol/index.ts';
import { codonRange } from '../../model/checkpoint-range.ts';
import { displayLine } from '../../model/display-text.ts';
import { formatTime } from '../../model/format.ts';
import { runCheckpoints } from '../../model/store/selectors.ts';
import { readAddress, writeAddress } from '../address.ts';
import { requestDiff } from '../diff-request.ts';
import type { DashboardState } from '../model/dashboard.ts';
import type { CheckpointDiff } from '../model/diff-layout.ts';
import { fileTree, type TreeNode } from '../model/file-tree.ts';
import { languageOf } from '../model/highlight.ts';
import { diffPoints, lineageOf } from '../model/lineage.ts';
import { type CommentView, type LinePick, pickLine } from '../model/review.ts';
import { Code } from './code.tsx';
import { type DiffReview, FileDiff } from './file-diff.tsx';
import { CommentForm, ReviewPanel } from './review.tsx';

type DiffState =
  | { phase: 'idle' }
  | { phase: 'loading' }
  | { phase: 'done'; diff: CheckpointDiff }
  | { phase: 'failed'; message: string };

/** What the Changes view may do with comments: write them and send a review, or why it cannot. */
export type ReviewControls = {
  /** Why this page cannot comment or send (read-only); undefined when it can. */
  cannot?: string;
  /** Why nothing can be saved or sent just now (not connected); the page still picks and writes. */
  offline?: string;
  comment(input: {
    codonId: string;
    from: string;
    to: string;
    file: string;
    side: ReviewSide;
    lines: { start: number; end: number };
    text: string;
  }): void;
  /** Opens the send-review dialog for the codon. */
  send(codonId: string): void;
};

/**
 * The files the agent touched, the diff between two checkpoints (by default the selected codon's
 * start and end), and the codon's review: line comments written on the diff, listed with their state.
 */
export function Changes({
  state,
  client,
  codonId,
  comments,
  review,
  now,
}: {
  state: DashboardState;
  client: BrowserClient;
  codonId: string | undefined;
  /** The selected codon's comments, oldest first. */
  comments: readonly CommentView[];
  review: ReviewControls;
  now: number;
}): React.ReactElement {
  const runId = state.run.run.runId;
  const lineage = lineageOf(state.runs, runId);
  const checkpoints = diffPoints(
    state.runs,
    runId,
    runCheckpoints(state.run.checkpoints, runId),
    state.listed,
  );
  const range = codonId ? codonRange(checkpoints, codonId) : {};
  const [from, setFrom] = React.useState(() => namedDiff(codonId)?.from ?? '');
  const [to, setTo] = React.useState(() => namedDiff(codonId)?.to ?? '');
  const [layout, setLayout] = React.useState<'unified' | 'split'>('unified');
  const [diff, setDiff] = React.useState<DiffState>({ phase: 'idle' });
  const [open, setOpen] = React.useState<string | undefined>();
  const [pick, setPick] = React.useState<LinePick | undefined>();
  const [draft, setDraft] = React.useState('');
  // A saved comment's review.comment: the id of the one before it (the answer is the next one's), and
  // why the server refused it. The form keeps its text until the server has the comment.
  const [saving, setSaving] = React.useState<{ before: string | undefined } | undefined>();
  const [refused, setRefused] = React.useState<string | undefined>();
  // The line number clicked last: focus goes back to it once the comment is saved or dropped.
  const clicked = React.useRef<HTMLButtonElement | null>(null);
  const lastComment = state.run.commands.findLast((c) => c.type === 'review.comment');
  React.useEffect(() => {
    if (!saving || !lastComment || lastComment.id === saving.before || lastComment.status === 'sent') return;
    setSaving(undefined);
    if (lastComment.status === 'failed') {
      setRefused(lastComment.error ?? 'refused by the server');
      return;
    }
    setPick(undefined);
    setDraft('');
    clicked.current?.focus();
  }, [saving, lastComment]);

  // The run, then the earlier runs of its lineage: asked again when either changes.
  const asks = [runId ?? '', ...lineage.slice(1).map((r) => r.runId)].join(' ');
  React.useEffect(() => {
    // The earlier runs' checkpoints (the dashboard's lists by run), then the run's own, so a codon's
    // start and end are known.
    const [, ...earlier] = asks.split(' ');
    try {
      for (const id of earlier) client.send('checkpoint.list', { runId: id });
      client.send('checkpoint.list', {});
    } catch {
      // Closed: asked again once reconnected.
    }
  }, [client, asks]);
  React.useEffect(() => {
    const kept = namedDiff(codonId);
    setFrom(kept?.from ?? range.from?.sha ?? '');
    setTo(kept?.to ?? range.to?.sha ?? '');
  }, [range.from?.sha, range.to?.sha, codonId]);
  React.useEffect(() => {
    if (from && to) writeAddress({ from, to });
  }, [from, to]);
  React.useEffect(() => {
    // Lines picked on another diff are not lines of this one.
    setPick(undefined);
    if (!from || !to) return;
    let current = true;
    setDiff({ phase: 'loading' });
    requestDiff(client, from, to).then(
      (d) => current && setDiff({ phase: 'done', diff: d }),
      (error: unknown) => current && setDiff({ phase: 'failed', message: (error as Error).message }),
    );
    return () => {
      current = false;
    };
  }, [client, from, to]);

  const tree = React.useMemo(() => fileTree(state.files), [state.files]);
  const file = open ? state.files.get(open) : undefined;
  const option = (sha: string) => {
    const c = checkpoints.find((x) => x.sha === sha);
    return c
      ? displayLine(
          `${c.sha.slice(0, 8)} ${c.codonId || '(initial)'} ${c.checkpointType} ${formatTime(c.timestamp)}${c.runId && c.runId !== runId ? ` (run ${c.runId})` : ''}`,
        )
      : sha.slice(0, 8);
  };
  const cannot = review.cannot ?? (codonId ? undefined : 'select a codon to comment on its diff');
  const save = () => {
    if (!pick || !codonId || draft.trim() === '' || saving) return;
    setRefused(undefined);
    setSaving({ before: lastComment?.id });
    review.comment({
      codonId,
      from,
      to,
      file: pick.file,
      side: pick.side,
      lines: { start: pick.start, end: pick.end },
      text: draft.trim(),
    });
  };
  const form = pick ? (
    <CommentForm
      pick={pick}
      text={draft}
      setText={setDraft}
      onSave={save}
      onCancel={() => {
        setPick(undefined);
        setDraft('');
        setRefused(undefined);
        setSaving(undefined);
        clicked.current?.focus();
      }}
      saving={saving !== undefined}
      {...(refused ? { error: refused } : {})}
      {...(review.offline ? { cannot: review.offline } : {})}
    />
  ) : null;
  const own = state.run.connection.clientIds ?? [];
  const diffReview: DiffReview = {
    own,
    from,
    to,
    comments,
    pick,
    form,
    now,
    ...(cannot === undefined
      ? {
          onPick: (at, extend, button) => {
            clicked.current = button;
            setRefused(undefined);
            setPick((p) => pickLine(p, at, extend));
          },
        }
      : { cannot }),
  };
  return (
    <section className="changes" data-testid="view-changes">
      <aside className="tree" data-testid="file-tree">
        <h3>Files ({state.files.size})</h3>
        {state.files.size === 0 ? (
          <p className="hint" data-testid="empty-files">
            No file changed yet: the files an agent writes appear here.
          </p>
        ) : null}
        <Tree node={tree} onOpen={setOpen} open={open} />
        {file ? (
          <div className="file-content">
            <div className="label">
              {displayLine(file.path)} · {file.action} {formatTime(file.at)}
            </div>
            <Code text={file.content} language={languageOf(file.path)} />
          </div>
        ) : null}
      </aside>
      <div className="diff">
        <div className="toolbar">
          <label>
            from{' '}
            <select value={from} onChange={(e) => setFrom(e.target.value)} data-testid="diff-from">
              <option value="">—</option>
              {checkpoints.map((c) => (
                <option key={c.sha} value={c.sha}>
                  {option(c.sha)}
                </option>
              ))}
            </select>
          </label>
          <label>
            to{' '}
            <select value={to} onChange={(e) => setTo(e.target.value)} data-testid="diff-to">
              <option value="">—</option>
              {checkpoints.map((c) => (
                <option key={c.sha} value={c.sha}>
                  {option(c.sha)}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            onClick={() => setLayout((l) => (l === 'unified' ? 'split' : 'unified'))}
            data-testid="diff-layout"
          >
            {layout === 'unified' ? 'side by side' : 'unified'}
          </button>
        </div>
        {codonId ? (
          <ReviewPanel
            codonId={codonId}
            comments={comments}
            from={from}
            to={to}
            now={now}
            own={own}
            {...(review.cannot === undefined && review.offline === undefined
              ? { onSend: () => review.send(codonId) }
              : { cannot: review.cannot ?? review.offline ?? '' })}
          />
        ) : (
          <div className="empty-state small" data-testid="empty-codon">
            <b>No codon selected</b>
            Pick one in the overview (or with j and k) to see what it changed and comment on it.
          </div>
        )}
        {diff.phase === 'loading' ? <p className="muted">loading diff…</p> : null}
        {diff.phase === 'failed' ? <p className="bad">{displayLine(diff.message)}</p> : null}
        {diff.phase === 'idle' && !(from && to) ? (
          <div className="empty-state small" data-testid="empty-diff">
            <b>No diff to show</b>
            {codonId
              ? 'This codon has no checkpoints yet: its changes show once it ends. Or pick two checkpoints above.'
              : 'Pick two checkpoints above.'}
          </div>
        ) : null}
        {diff.phase === 'done' ? (
          <>
            {diff.diff.truncated ? (
              <p className="warn" data-testid="diff-truncated">
                the diff is cut at {Math.round(diff.diff.limitBytes / 1024)} KiB: some files are missing or
                partial
              </p>
            ) : null}
            {diff.diff.files.length === 0 ? (
              <div className="empty-state small" data-testid="empty-changes">
                <b>No changes</b>
                Nothing differs between these two checkpoints.
              </div>
            ) : null}
            {diff.diff.files.map((f) => (
              <FileDiff key={`${f.oldPath ?? ''}>${f.path}`} file={f} layout={layout} review={diffReview} />
            ))}
          </>
        ) : null}
      </div>
    </section>
  );
}

/** The address may name this codon's diff's checkpoints (a reload, a link): they win over its range. */
function namedDiff(codonId: string | undefined): { from: string; to: string } | undefined {
  const a = readAddress();
  return a.from && a.to && a.codon === codonId ? { from: a.from, to: a.to } : undefined;
}

function Tree({
  node,
  onOpen,
  open,
}: {
  node: TreeNode;
  onOpen: (path: string) => void;
  open: string | undefined;
}) {
  return (
    <ul>
      {node.children.map((c) => (
        <li key={c.path}>
          {c.file ? (
            <button
              type="button"
              className={`link ${c.path === open ? 'selected' : ''} action-${c.file.action}`}
              onClick={() => onOpen(c.path)}
            >
              {displayLine(c.name)}
            </button>
          ) : (
            <span className="dir">{displayLine(c.name)}/</span>
          )}
          {c.children.length > 0 ? <Tree node={c} onOpen={onOpen} open={open} /> : null}
        </li>
      ))}
    </ul>
  );
}
