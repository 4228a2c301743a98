import { ESTIMATE_LEGEND } from '../../../llm/estimated-cost.ts';
import type { Tone } from '../../model/tone.ts';
import type { KeyInfo } from '../../tui/view/keymap.ts';
import type { Line } from '../../tui/view/lines.ts';
import { type JobResult, JobState } from '../summary-schema.ts';
import { jobOpening } from './job-opening.ts';
import { STATE_ICON, STATE_WORD } from './job-table.ts';

/**
 * The batch table's keys (pure), written down once: the key line, the help screen and
 * `handleBatchKey` read the same list. Keys change the view, and may ask for one effect: open a
 * job's TUI, or stop the batch.
 */
export type Binding = { keys: string; label: string; description: string };

export const BINDINGS: readonly Binding[] = [
  { keys: '↑↓', label: 'move', description: 'select a job (also j/k; pgup/pgdn a page, home/end)' },
  {
    keys: 'enter',
    label: 'open TUI',
    description: "open the selected job's terminal UI (also o); its q comes back here",
  },
  {
    keys: 'q',
    label: 'stop batch',
    description: 'stop the batch, as Ctrl-C does: no job starts, running ones are stopped',
  },
  { keys: '?', label: 'help', description: 'show or hide this help' },
];

/** What the person chose to see: the selected job (by id, so it stays on its job as rows change), an open help, news. */
export type BatchView = {
  selected?: string;
  modal?: { kind: 'help' };
  notice?: { text: string; tone: Tone };
};

export type BatchEffect = { kind: 'open'; jobId: string; url: string } | { kind: 'stop' };

export type BatchKeyContext = {
  /** The jobs in table order. */
  jobs: readonly JobResult[];
  /** The batch directory: a job's execution directory is relative to it. */
  batchDir: string;
  /** Rows a page key moves. */
  pageSize: number;
};

export type BatchKeyOutcome = { view: BatchView; effects: BatchEffect[] };

/** The job the table shows selected: the one chosen, else the first (a job id no longer listed counts as none). */
export function selectedJob(view: BatchView, jobs: readonly JobResult[]): JobResult | undefined {
  return jobs.find((j) => j.id === view.selected) ?? jobs[0];
}

/** Pure: one key press in, the next view and the effects out. */
export function handleBatchKey(
  view: BatchView,
  input: string,
  key: KeyInfo,
  ctx: BatchKeyContext,
): BatchKeyOutcome {
  const same = (effects: BatchEffect[] = []): BatchKeyOutcome => ({ view, effects });
  const to = (next: BatchView, effects: BatchEffect[] = []): BatchKeyOutcome => ({ view: next, effects });
  // Ctrl-C reaches a raw-mode terminal as a key, not a signal: it stops the batch as q does.
  if ((input === 'q' && !key.ctrl) || (input === 'c' && key.ctrl))
    return to(
      {
        ...view,
        notice: { text: 'stopping the batch: no new job starts, running ones are stopped', tone: 'warn' },
      },
      [{ kind: 'stop' }],
    );
  if (key.meta && !key.escape) return same();
  if (view.modal?.kind === 'help') {
    if (key.escape || key.return || input === '?') {
      const { modal: _m, ...rest } = view;
      return to(rest);
    }
    return same();
  }
  if (input === '?') return to({ ...view, modal: { kind: 'help' } });

  const jobs = ctx.jobs;
  const current = selectedJob(view, jobs);
  const at = current === undefined ? -1 : jobs.indexOf(current);
  const move = (delta: number) => {
    const target = jobs[Math.min(jobs.length - 1, Math.max(0, at + delta))];
    if (target === undefined) return same();
    const { notice: _n, ...rest } = view;
    return to({ ...rest, selected: target.id });
  };
  if (key.upArrow || input === 'k') return move(-1);
  if (key.downArrow || input === 'j') return move(1);
  if (key.pageUp) return move(-ctx.pageSize);
  if (key.pageDown) return move(ctx.pageSize);
  if (key.home) return move(-jobs.length);
  if (key.end) return move(jobs.length);
  if (key.escape && view.notice) {
    const { notice: _n, ...rest } = view;
    return to(rest);
  }
  if ((key.return || input === 'o') && current) {
    const opening = jobOpening(current, ctx.batchDir);
    if (!opening.ok)
      return to({ ...view, selected: current.id, notice: { text: opening.why, tone: 'warn' } });
    const { notice: _n, ...rest } = view;
    return to({ ...rest, selected: current.id }, [{ kind: 'open', jobId: current.id, url: opening.url }]);
  }
  return same();
}

/**
 * The key line: as many keys as fit `width`, in their order; stopping the batch and the help always.
 * With the help open, how to close it.
 */
export function keyLine(width: number, modal?: 'help'): string {
  if (modal === 'help') return 'esc or ? close the help  q stop batch';
  const label = (b: Binding) => `${b.keys === 'enter' ? 'enter/o' : b.keys} ${b.label}`;
  const tail = BINDINGS.filter((b) => b.keys === 'q' || b.keys === '?').map(label);
  const parts: string[] = [];
  for (const b of BINDINGS.filter((b) => b.keys !== 'q' && b.keys !== '?')) {
    if ([...parts, label(b), ...tail].join('  ').length > width) break;
    parts.push(label(b));
  }
  return [...parts, ...tail].join('  ');
}

const STATE_MEANING: Record<JobState, string> = {
  pending: 'not started yet',
  running: 'its `ribosome run` is running: enter opens its TUI',
  passed: 'the plan ran to its end',
  failed: 'a codon failed or was stopped',
  skipped: 'never started: the batch budget was spent, or --fail-fast stopped the batch',
  'infra-failed': 'its run could not run (exit 2, 3 or 4, or a signal), after every retry',
};

/** The help screen: every key, what each state means, how to read a job that no longer runs. */
export function batchHelpLines(batchDir: string): Line[] {
  const lines: Line[] = [{ text: `Ribosome batch · ${batchDir}`, bold: true }];
  for (const b of BINDINGS) lines.push({ text: `  ${b.keys.padEnd(6)} ${b.description}` });
  lines.push({ text: '' }, { text: '  states:', tone: 'muted' });
  for (const state of JobState.options) {
    const meaning = STATE_MEANING[state];
    lines.push({ text: `    ${STATE_ICON[state]} ${STATE_WORD[state].padEnd(8)} ${meaning}`, tone: 'muted' });
  }
  lines.push(
    { text: '' },
    {
      text: '  A job that no longer runs has no TUI: `ribosome log --execution <batch-dir>/jobs/<id>` reads it.',
      tone: 'muted',
    },
    { text: `  costs: ${ESTIMATE_LEGEND}`, tone: 'muted' },
  );
  return lines;
}
