import React from 'react';
import type { BrowserClient } from '../../../core/client/browser.ts';
import { codonRange } from '../../model/checkpoint-range.ts';
import { displayLine, displayText } from '../../model/display-text.ts';
import { formatTime } from '../../model/format.ts';
import { runCheckpoints } from '../../model/store/selectors.ts';
import { requestDiff } from '../diff-request.ts';
import type { DashboardState } from '../model/dashboard.ts';
import { type CheckpointDiff, type DiffFile, splitRows, unifiedRows } from '../model/diff-layout.ts';
import { fileTree, type TreeNode } from '../model/file-tree.ts';
import { diffPoints, lineageOf } from '../model/lineage.ts';

type DiffState =
  | { phase: 'idle' }
  | { phase: 'loading' }
  | { phase: 'done'; diff: CheckpointDiff }
  | { phase: 'failed'; message: string };

/** The files the agent touched, and the diff between two checkpoints (by default the selected codon's start and end). */
export function Changes({
  state,
  client,
  codonId,
}: {
  state: DashboardState;
  client: BrowserClient;
  codonId: string | undefined;
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
  const [from, setFrom] = React.useState('');
  const [to, setTo] = React.useState('');
  const [layout, setLayout] = React.useState<'unified' | 'split'>('unified');
  const [diff, setDiff] = React.useState<DiffState>({ phase: 'idle' });
  const [open, setOpen] = React.useState<string | undefined>();

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
    setFrom(range.from?.sha ?? '');
    setTo(range.to?.sha ?? '');
  }, [range.from?.sha, range.to?.sha]);
  React.useEffect(() => {
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
  return (
    <section className="changes" data-testid="view-changes">
      <aside className="tree" data-testid="file-tree">
        <h3>Files ({state.files.size})</h3>
        <Tree node={tree} onOpen={setOpen} open={open} />
        {file ? (
          <div className="file-content">
            <div className="label">
              {displayLine(file.path)} · {file.action} {formatTime(file.at)}
            </div>
            <pre>{displayText(file.content)}</pre>
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
            onClick={() => setLayout(layout === 'unified' ? 'split' : 'unified')}
            data-testid="diff-layout"
          >
            {layout === 'unified' ? 'side by side' : 'unified'}
          </button>
          <span className="muted">
            {codonId ? displayLine(`codon ${codonId}`) : 'select a codon in the overview'}
          </span>
        </div>
        {diff.phase === 'loading' ? <p className="muted">loading diff…</p> : null}
        {diff.phase === 'failed' ? <p className="bad">{displayLine(diff.message)}</p> : null}
        {diff.phase === 'idle' && !(from && to) ? <p className="muted">pick two checkpoints</p> : null}
        {diff.phase === 'done' ? (
          <>
            {diff.diff.truncated ? (
              <p className="warn" data-testid="diff-truncated">
                the diff is cut at {Math.round(diff.diff.limitBytes / 1024)} KiB: some files are missing or
                partial
              </p>
            ) : null}
            {diff.diff.files.length === 0 ? <p className="muted">no changes</p> : null}
            {diff.diff.files.map((f) => (
              <FileDiff key={`${f.oldPath ?? ''}>${f.path}`} file={f} layout={layout} />
            ))}
          </>
        ) : null}
      </div>
    </section>
  );
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

function FileDiff({ file, layout }: { file: DiffFile; layout: 'unified' | 'split' }) {
  return (
    <div className="file-diff" data-testid="diff-file" data-path={file.path}>
      <div className="file-head">
        <b data-testid="diff-file-name">
          {displayLine(file.oldPath ? `${file.oldPath} → ${file.path}` : file.path)}
        </b>{' '}
        <span className={`st-${file.status}`}>{file.status}</span>{' '}
        <span className="add">+{file.additions}</span> <span className="del">−{file.deletions}</span>
        {file.truncated ? <span className="warn"> (truncated)</span> : null}
      </div>
      {file.binary ? (
        <p className="muted">binary file</p>
      ) : layout === 'unified' ? (
        <Unified file={file} />
      ) : (
        <Split file={file} />
      )}
    </div>
  );
}

function Unified({ file }: { file: DiffFile }) {
  return (
    <table className="code">
      <tbody>
        {unifiedRows(file).map((r, i) =>
          r.kind === 'hunk' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <tr key={i} className="hunk">
              <td colSpan={3}>{r.text}</td>
            </tr>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <tr key={i} className={r.kind}>
              <td className="no">{r.oldNo ?? ''}</td>
              <td className="no">{r.newNo ?? ''}</td>
              <td className="src">
                {r.kind === 'add' ? '+' : r.kind === 'del' ? '-' : ' '}
                {displayText(r.text)}
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function Split({ file }: { file: DiffFile }) {
  return (
    <table className="code split">
      <tbody>
        {splitRows(file).map((r, i) =>
          r.kind === 'hunk' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <tr key={i} className="hunk">
              <td colSpan={4}>{r.text}</td>
            </tr>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
            <tr key={i}>
              <td className="no">{r.left?.no ?? ''}</td>
              <td className={`src ${r.left?.kind ?? 'empty'}`}>{displayText(r.left?.text ?? '')}</td>
              <td className="no">{r.right?.no ?? ''}</td>
              <td className={`src ${r.right?.kind ?? 'empty'}`}>{displayText(r.right?.text ?? '')}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}
