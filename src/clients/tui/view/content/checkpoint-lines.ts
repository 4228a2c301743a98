import { suggestedAction } from '../../../../core/protocol/index.ts';
import { formatTime } from '../../../model/format.ts';
import type { RunState } from '../../../model/store/run-state.ts';
import { runCheckpoints } from '../../../model/store/selectors.ts';
import { type Line, wrapLine } from '../lines.ts';

/** A text progress bar: [#####-----]. */
export function progressBar(current: number, total: number, width = 20): string {
  const done = total > 0 ? Math.round((Math.min(current, total) / total) * width) : 0;
  return `[${'#'.repeat(done)}${'-'.repeat(width - done)}]`;
}

/** The rollback in progress (or its outcome), as the server reports it. */
export function rollbackLines(r: RunState['rollback'], width: number): Line[] {
  const target = r.target ?? 'a checkpoint';
  switch (r.phase) {
    case 'idle':
      return [];
    case 'requested':
      return wrapLine(
        { text: `Rollback to ${target}: asked the server, waiting for it…`, tone: 'accent', bold: true },
        width,
      );
    case 'failed':
      return [
        ...wrapLine(
          {
            // Refused before it started, or failed after rollback.started (its log says how far it got).
            text: `Rollback to ${target} ${r.log.length > 0 ? 'failed' : 'refused'}: ${r.error?.code ? `${r.error.code} — ` : ''}${r.error?.message ?? 'no reason given'}`,
            tone: 'bad',
            bold: true,
          },
          width,
          6,
        ),
        ...wrapLine({ text: `  → ${suggestedAction.operation}`, tone: 'muted' }, width, 2, '    '),
      ];
    case 'running':
    case 'completed': {
      const step = r.totalSteps
        ? ` ${progressBar(r.currentStep ?? 0, r.totalSteps)} ${r.currentStep ?? 0}/${r.totalSteps}`
        : '';
      const head: Line =
        r.phase === 'completed' && r.cause === 'recovery'
          ? {
              text: `Recovered after the server stopped: back to ${target}${r.toRun ? `; run ${r.toRun} goes on` : ''}`,
              tone: 'warn',
              bold: true,
            }
          : r.phase === 'completed'
            ? {
                text: `Rollback to ${target}: completed${r.toRun ? `; now run ${r.toRun}` : ''}`,
                tone: 'ok',
                bold: true,
              }
            : { text: `Rolling back to ${target}…${step}`, tone: 'accent', bold: true };
      return [
        ...wrapLine(head, width),
        ...r.log.flatMap((l) => wrapLine({ text: `  ${l.text}`, tone: l.tone }, width, 3, '    ')),
      ];
    }
  }
}

/** The checkpoints pane: rollback state first, then the run's checkpoints, oldest first. */
export function checkpointLines(
  checkpointsView: RunState['checkpoints'],
  rollback: RunState['rollback'],
  run: Pick<RunState['run'], 'runId' | 'branch'>,
  width: number,
): Line[] {
  const lines = rollbackLines(rollback, width);
  const checkpoints = runCheckpoints(checkpointsView, run.runId);
  const listed = checkpointsView.listed;
  const branch = run.branch ?? listed?.branch;
  lines.push({
    text: `branch ${branch || 'unknown'}${listed ? ` · listed ${formatTime(listed.at)}` : ' · press c to list'}`,
    tone: 'muted',
  });
  if (checkpoints.length === 0) lines.push({ text: 'No checkpoints known for this run.', tone: 'muted' });
  for (const c of checkpoints) {
    lines.push({
      text: `${c.sha.slice(0, 8)} ${c.codonId} ${c.checkpointType}${c.status === c.checkpointType ? '' : ` (${c.status})`} ${formatTime(c.timestamp)}`,
      tone: c.checkpointType === 'error' ? 'bad' : c.checkpointType === 'skipped' ? 'warn' : 'plain',
    });
  }
  return lines;
}
