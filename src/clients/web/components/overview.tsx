import type React from 'react';
import { ESTIMATE_LEGEND } from '../../../llm/estimated-cost.ts';
import { APPROVAL_WAIT_WORD } from '../../model/approval-wait.ts';
import { displayLine } from '../../model/display-text.ts';
import { formatCost, formatTokens } from '../../model/format.ts';
import { budgetLine } from '../../model/store/budget.ts';
import { attemptWord, orderedCodons } from '../../model/store/codons.ts';
import { commentCounts } from '../../model/store/reviews.ts';
import { PASSED_OVER, passedOverCodons, runWord } from '../../model/store/selectors.ts';
import { currentRunCost, currentRunCostEstimated, totalTokens } from '../../model/store/totals.ts';
import { USAGE_WAIT_WORD } from '../../model/usage-wait.ts';
import type { DashboardState } from '../model/dashboard.ts';
import { runStatusWord } from '../model/lineage.ts';
import { codonLook } from '../model/status-look.ts';
import { durationWords } from '../model/time-words.ts';
import { MessageBox } from './message-box.tsx';
import { Time } from './time.tsx';

/** The run at a glance: codons as a timeline, totals, run and branch, proxy, budgets, earlier runs. */
export function Overview({
  state,
  selected,
  onSelect,
  now,
  message,
}: {
  state: DashboardState;
  selected: string | undefined;
  onSelect: (codonId: string) => void;
  now: number;
  /** The message box (readandwrite pages only): who takes a message now, the text, sending it. */
  message?: React.ComponentProps<typeof MessageBox>;
}): React.ReactElement {
  const { run, connection } = state.run;
  const codons = orderedCodons(state.run.codons);
  const starts = codons
    .map((c) => (c.startTime ? Date.parse(c.startTime) : Number.NaN))
    .filter(Number.isFinite);
  const t0 = starts.length > 0 ? Math.min(...starts) : now;
  const ends = codons.map((c) =>
    c.startTime
      ? Date.parse(c.startTime) + (c.duration ?? (c.status === 'running' ? now - Date.parse(c.startTime) : 0))
      : t0,
  );
  // The timeline spans the codons' work: up to now only while one runs.
  const active = codons.some((c) => c.status === 'running' || c.status === 'preparing');
  const span = Math.max(1, Math.max(active ? now : t0, ...ends) - t0);
  const tokens = totalTokens(run);
  const budget = budgetLine(run, tokens.output, now);
  // Pending codons the server will not run (a loop `until: verify` that ended early), as the TUI says.
  const passedOver = passedOverCodons(codons, run.idle);
  const comments = commentCounts(state.run);
  const started = codons.some((c) => c.attempts > 0 || c.status !== 'pending');
  const fact = (
    label: string,
    value: React.ReactNode,
    testId?: string,
    className?: string,
    wide?: boolean,
  ) => (
    <div className={wide ? 'fact wide' : 'fact'}>
      <dt>{label}</dt>
      <dd data-testid={testId} className={className}>
        {value}
      </dd>
    </div>
  );
  return (
    <section className="overview" data-testid="view-overview">
      <dl className="facts">
        {fact('run', displayLine(run.runId ?? '—'), 'run-id', undefined, true)}
        {fact('state', runWord(run) || '—', 'run-state')}
        {fact('branch', displayLine(run.branch ?? '—'), 'run-branch', undefined, true)}
        {fact(
          'cost',
          <>
            {formatCost(currentRunCost(run), currentRunCostEstimated(run))}
            {run.runCount > 1
              ? ` (all ${run.runCount} runs ${formatCost(run.totalCost, run.totalCostEstimated)})`
              : ''}
          </>,
          'run-cost',
        )}
        {fact(
          'tokens',
          `${formatTokens(tokens.input)} in · ${formatTokens(tokens.output)} out · ${formatTokens(tokens.cacheRead)} cache read`,
          undefined,
          undefined,
          true,
        )}
        {fact(
          'proxy',
          connection.proxy
            ? connection.proxy.enabled
              ? displayLine(`on ${connection.proxy.url ?? ''}`)
              : 'off'
            : '—',
        )}
        {budget
          ? fact('budget', budget.text, undefined, budget.tone ? `tone-${budget.tone}` : undefined)
          : null}
      </dl>
      {message ? <MessageBox {...message} /> : null}
      {!started && codons.length > 0 ? (
        <div className="empty-state small" data-testid="empty-codons">
          <b>No codon has started yet</b>
          {message
            ? 'Press n or “next” to start the first codon; select a codon and press g to start that one.'
            : 'This page only watches: the run’s codons show here as soon as someone starts them.'}
        </div>
      ) : null}
      {codons.length === 0 ? (
        <div className="empty-state" data-testid="empty-plan">
          <b>No codons to show</b>
          The server has not said what its plan holds yet.
        </div>
      ) : (
        <div className="scroll-x">
          <table className="timeline">
            <thead>
              <tr>
                <th>codon</th>
                <th className="opt">agent</th>
                <th>status</th>
                <th className="opt">start</th>
                <th>duration</th>
                <th className="opt">attempts</th>
                <th>cost</th>
                <th className="bar-col opt">timeline</th>
              </tr>
            </thead>
            <tbody>
              {codons.map((c) => {
                const start = c.startTime ? Date.parse(c.startTime) : undefined;
                // A codon a wait holds says so (a usage limit: not just failed, it starts again at the
                // reset; an approval: it ended well and the run waits for a person).
                const waits = c.note === USAGE_WAIT_WORD || c.note === APPROVAL_WAIT_WORD;
                const duration =
                  c.duration ?? (c.status === 'running' && start ? Math.max(0, now - start) : undefined);
                const look = passedOver.has(c.codonId) ? 'st-skipped' : codonLook(c.status, waits);
                return (
                  <tr
                    key={c.codonId}
                    data-testid={`codon-${c.codonId}`}
                    data-status={c.status}
                    className={c.codonId === selected ? 'selected' : undefined}
                    onClick={() => onSelect(c.codonId)}
                  >
                    <td>
                      <b>{displayLine(c.codonId)}</b>
                      <span className="name" data-testid="codon-name">
                        {c.codonName !== c.codonId ? displayLine(c.codonName) : ''}
                      </span>
                      {comments[c.codonId] ? (
                        <span
                          className="comments-count"
                          data-testid="codon-comments"
                          title="review comments (the Changes view lists them)"
                        >
                          ✎ {comments[c.codonId]?.total}
                          {comments[c.codonId]?.unsent ? ` · ${comments[c.codonId]?.unsent} unsent` : ''}
                        </span>
                      ) : null}
                    </td>
                    <td className="muted opt" data-testid="codon-agent">
                      {displayLine(c.agent ?? '')}
                    </td>
                    <td className="status" data-testid="codon-status">
                      <span className={`pill plain ${look}`}>
                        {waits && c.note && shortNote(c.note) !== c.note ? (
                          <>
                            <span className="wide-only">{displayLine(c.note)}</span>
                            <span className="narrow-only">{displayLine(shortNote(c.note))}</span>
                          </>
                        ) : waits && c.note ? (
                          c.note
                        ) : passedOver.has(c.codonId) ? (
                          PASSED_OVER
                        ) : (
                          c.status
                        )}
                      </span>
                      {c.note && !waits ? <span className="muted">{displayLine(` (${c.note})`)}</span> : ''}
                      {attemptWord(c) ? <span className="muted"> · {attemptWord(c)}</span> : ''}
                    </td>
                    <td className="opt">{c.startTime ? <Time iso={c.startTime} now={now} /> : '—'}</td>
                    <td>{duration === undefined ? '—' : durationWords(duration)}</td>
                    <td className="opt">{c.attempts}</td>
                    <td data-testid="codon-cost">{formatCost(c.cost, c.costEstimated)}</td>
                    <td className="bar-col opt">
                      {start !== undefined && duration !== undefined ? (
                        <span
                          className={`bar status-${waits ? 'waiting' : c.status}`}
                          style={{
                            left: `${((start - t0) / span) * 100}%`,
                            width: `${Math.max(0.5, (duration / span) * 100)}%`,
                          }}
                        />
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {codons.some((c) => c.costEstimated) || run.totalCostEstimated ? (
        <p className="muted" data-testid="cost-legend">
          {ESTIMATE_LEGEND}
        </p>
      ) : null}
      <h3>Runs of this execution</h3>
      <ul className="runs" data-testid="runs">
        {state.runs.map((r) => (
          <li key={r.runId} className={r.runId === run.runId ? 'current' : undefined}>
            <b>{displayLine(r.runId)}</b> <span data-testid="run-status">{runStatusWord(r, run)}</span> ·{' '}
            {r.reason ?? 'start'} <Time iso={r.startedAt} now={now} ago />
            {r.fromRunId
              ? displayLine(
                  ` · from ${r.fromRunId}${r.fromCheckpoint ? ` at ${r.fromCheckpoint.slice(0, 8)}` : ''}`,
                )
              : ''}
            {r.branch ? displayLine(` · ${r.branch}`) : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A long wait's note as a phone's narrow status column says it. */
const shortNote = (note: string) => (note === 'waiting for approval' ? 'awaits approval' : note);
