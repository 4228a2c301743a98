import { displayLine } from '../../model/display-text.ts';
import { formatClock, formatCost } from '../../model/format.ts';
import type { Tone } from '../../model/tone.ts';
import { usageWaitText } from '../../model/usage-wait.ts';
import { padTo } from '../../tui/view/fit-text.ts';
import type { Line } from '../../tui/view/lines.ts';
import type { BatchSummary, JobResult, JobState } from '../summary-schema.ts';

/**
 * The live table of a batch, one row per job in job order (pure): state, job id, codons done of all,
 * cost, elapsed time and the last event, each cell cut to a column. What a narrow terminal cannot
 * hold goes, least useful first: the last event, then elapsed, cost and codons; the state and the
 * id always stay. Every text from the summary (ids, events, reasons) is untrusted: it passes
 * through displayLine before it is measured.
 */

export const STATE_ICON: Record<JobState, string> = {
  pending: '·',
  running: '▶',
  passed: '✓',
  failed: '✗',
  skipped: '↷',
  'infra-failed': '!',
};

/** The state as the table words it (the help gives the legend: `infra` is infra-failed). */
export const STATE_WORD: Record<JobState, string> = {
  pending: 'pending',
  running: 'running',
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  'infra-failed': 'infra',
};

export const STATE_TONE: Record<JobState, Tone> = {
  pending: 'muted',
  running: 'accent',
  passed: 'ok',
  failed: 'bad',
  skipped: 'warn',
  'infra-failed': 'bad',
};

export type ColumnKey = 'state' | 'job' | 'codons' | 'cost' | 'elapsed' | 'event';

export type JobRow = {
  /** The job id as the summary has it (the selection and `openTui` use it); `text` shows it made safe. */
  id: string;
  index: number;
  state: JobState;
  /** The row's cells joined, fitted to the table's width (the two columns of the selection mark aside). */
  text: string;
  tone: Tone;
};

export type JobTable = {
  /** The columns shown, left to right. */
  columns: ColumnKey[];
  /** The column titles, aligned as the rows are. */
  header: string;
  rows: JobRow[];
};

/** Every row starts with the selection mark (`›`) and a space: the table's cells get the rest. */
export const MARK_WIDTH = 2;
const TITLES: Record<ColumnKey, string> = {
  state: 'state',
  job: 'job',
  codons: 'codons',
  cost: 'cost',
  elapsed: 'elapsed',
  event: 'last event',
};
// Below this, a state is its icon alone; an event cell narrower than EVENT_MIN says too little to keep.
const STATE_WORDS_FROM = 60;
const EVENT_MIN = 12;
const ID_MIN = 8;
// Optional columns in the order they go when the width runs out (the last goes first).
const OPTIONAL: readonly ColumnKey[] = ['codons', 'cost', 'elapsed'];
const RIGHT: ReadonlySet<ColumnKey> = new Set(['codons', 'cost', 'elapsed']);

export function tableRows(summary: BatchSummary, now: Date, width: number): JobTable {
  const jobs = [...summary.jobs].sort((a, b) => a.index - b.index);
  const cells = jobs.map((job) => jobCells(job, now.getTime()));
  const widest = (key: ColumnKey) =>
    cells.reduce((w, c) => Math.max(w, Array.from(c[key]).length), TITLES[key].length);
  const inner = Math.max(1, width - MARK_WIDTH);

  const state = inner >= STATE_WORDS_FROM ? widest('state') : 1;
  const idNeed = Math.max(TITLES.job.length, widest('job'));
  const idMin = Math.min(idNeed, ID_MIN);
  const optional = OPTIONAL.map((key) => ({ key, width: widest(key) }));
  // Each column but the first takes a separating space.
  const used = () => state + optional.reduce((sum, c) => sum + c.width + 1, 0);
  while (optional.length > 0 && used() + 1 + idMin > inner) optional.pop();
  const room = Math.max(0, inner - used() - 1);
  let id = Math.min(idNeed, room);
  let event = 0;
  if (room - idMin - 1 >= EVENT_MIN) {
    // The id takes what it needs as long as the event keeps half the room; the event the rest.
    const eventMin = Math.max(EVENT_MIN, Math.floor(room / 2));
    id = Math.min(idNeed, Math.max(idMin, room - 1 - eventMin));
    event = room - id - 1;
  }

  const widths = new Map<ColumnKey, number>([['state', state]]);
  widths.set('job', Math.max(1, id));
  for (const c of optional) widths.set(c.key, c.width);
  if (event > 0) widths.set('event', event);
  const columns = (['state', 'job', 'codons', 'cost', 'elapsed', 'event'] as const).filter((k) =>
    widths.has(k),
  );
  const line = (values: Record<ColumnKey, string>) =>
    columns
      .map((key) => fitCell(values[key], widths.get(key) ?? 0, RIGHT.has(key)))
      .join(' ')
      .trimEnd();
  const narrowState = (c: Record<ColumnKey, string>) => (state === 1 ? (c.state.at(0) ?? ' ') : c.state);
  return {
    columns,
    header: line({ ...TITLES, state: state === 1 ? ' ' : TITLES.state }),
    rows: jobs.map((job, i) => {
      const c = cells[i] ?? jobCells(job, now.getTime());
      return {
        id: job.id,
        index: job.index,
        state: job.state,
        text: line({ ...c, state: narrowState(c) }),
        tone: STATE_TONE[job.state],
      };
    }),
  };
}

/** The table as pane lines: the selected row marked `›` and drawn inverse (the mark stays under NO_COLOR). */
export function tableLines(table: JobTable, selected: string | undefined): Line[] {
  return table.rows.map((row) => {
    const chosen = row.id === selected;
    return {
      text: `${chosen ? '›' : ' '} ${row.text}`,
      tone: row.tone,
      bold: chosen || row.state === 'running',
      ...(chosen ? { highlight: true } : {}),
      ...(row.state === 'pending' ? { dim: true } : {}),
    };
  });
}

/** A job's cells, each made safe to print (not yet cut). */
function jobCells(job: JobResult, now: number): Record<ColumnKey, string> {
  const m = job.metrics;
  const ms = elapsedMs(job, now);
  return {
    state: `${STATE_ICON[job.state]} ${STATE_WORD[job.state]}`,
    job: displayLine(job.id),
    codons: m ? `${m.codonsDone}/${m.codonsTotal ?? '?'}` : '-',
    cost: m ? formatCost(m.costUsd, m.costEstimated) : '-',
    elapsed: ms === undefined ? '-' : formatClock(ms),
    event: displayLine(eventText(job, now)),
  };
}

/**
 * What the last column says: why a job failed or never ran, that a running one waits for a usage
 * limit (counted down), else its newest event. The summary's one-line text may still hold runs of
 * spaces or tabs: they read as one space.
 */
function eventText(job: JobResult, now: number): string {
  const wait = job.metrics?.usageWait;
  if (job.state === 'running' && wait) return `${wait.codonId}: ${usageWaitText(wait, now)}`;
  const ended = job.state === 'failed' || job.state === 'infra-failed' || job.state === 'skipped';
  const failure = job.metrics?.failure;
  const text = ended
    ? (job.reason ?? (failure ? `${failure.codonId}: ${failure.message}` : job.metrics?.lastEvent?.text))
    : (job.metrics?.lastEvent?.text ?? job.reason);
  return (text ?? '').replace(/[ \t\r\n]+/g, ' ').trim();
}

/**
 * A running job: since its start; an ended one: its wall time under this batch (durationMs, else
 * start to end). Undefined before it started, or when the times do not parse.
 */
export function elapsedMs(job: JobResult, now: number): number | undefined {
  const started = job.startedAt === undefined ? Number.NaN : Date.parse(job.startedAt);
  if (job.state === 'running') return Number.isFinite(started) ? Math.max(0, now - started) : undefined;
  if (job.durationMs !== undefined) return job.durationMs;
  const ended = job.endedAt === undefined ? Number.NaN : Date.parse(job.endedAt);
  return Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : undefined;
}

function fitCell(text: string, width: number, right: boolean): string {
  if (width <= 0) return '';
  const chars = Array.from(text);
  if (chars.length >= width) return padTo(text, width);
  return right ? text.padStart(width + text.length - chars.length) : padTo(text, width);
}

/** The selected job in a line, for the status line: its id, what it runs, and why it ended as it did. */
export function jobDetail(job: JobResult): string {
  const what = [job.agent, job.model, job.workspace].filter((s) => s !== undefined && s !== '');
  const why = job.reason ?? job.metrics?.failure?.message;
  return displayLine(
    [`${STATE_ICON[job.state]} ${job.id}`, ...what, ...(why ? [why] : [])]
      .join(' · ')
      .replace(/[ \t\r\n]+/g, ' '),
  );
}
