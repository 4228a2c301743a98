import { own, type ServerEvent } from '../../../core/protocol/index.ts';
import { fileChangeText, oneLine, toolCallMark } from '../../model/format.ts';
import { inActivityBatch, PAIRING_WINDOW } from '../../model/store/activity.ts';
import { foldEvent } from '../../model/store/fold-event.ts';
import { type ActivityEntry, initialRunState, type RunState } from '../../model/store/run-state.ts';

/**
 * What a job's journal says beyond its runs' records, folded event by event (pure): the clients'
 * own store (costs, tokens, codon rows, the activity lines the terminal UI shows), and the tallies a
 * batch compares jobs by. Folded again from where it stopped, so a reader polling a running job
 * folds only what is new.
 */
export type JobTally = {
  store: RunState;
  /** codon.started events per codon id. */
  starts: Record<string, number>;
  /** Feedback rounds: a codon's gates run again after the agent went on with a failed gate's output. */
  feedbackRounds: number;
  rollbacks: number;
  /** sentinel.action events that acted (dry runs only announce). */
  sentinelActions: number;
  /** Each gated codon's first round of gates: still running, all passed, or one failed or was stopped. */
  firstRounds: Record<string, FirstRound>;
  lastStarted?: string;
  /** The newest event the store made a line of (an activity line, a rollback step). */
  lastLine?: { id: string; type: string; at: string; text: string };
};

type FirstRound =
  | { state: 'open'; gates: number; lastGate: number }
  | { state: 'passed' }
  | { state: 'missed' };

/** Activity lines kept: enough for a tool's result to find its call (the pairing window). */
const ACTIVITY_KEPT = PAIRING_WINDOW;

export const emptyTally = (): JobTally => ({
  store: initialRunState('', ACTIVITY_KEPT),
  starts: {},
  feedbackRounds: 0,
  rollbacks: 0,
  sentinelActions: 0,
  firstRounds: {},
});

/** `tally` with `events` folded in (a new tally: the one given is left as it was). */
export function foldJob(tally: JobTally, events: readonly ServerEvent[]): JobTally {
  if (events.length === 0) return tally;
  const next: JobTally = {
    ...tally,
    starts: { ...tally.starts },
    firstRounds: { ...tally.firstRounds },
  };
  next.store = inActivityBatch(tally.store, (start) => {
    let store = start;
    for (const e of events) {
      store = foldEvent(store, e);
      count(next, e);
      const line = newLine(store, e.id);
      if (line !== undefined) next.lastLine = { id: e.id, type: e.type, at: e.timestamp, text: line };
    }
    return store;
  });
  // A tool call's line changes when its result comes (its mark): the newest line says so too.
  const newest = next.store.activity.at(-1);
  if (newest && next.lastLine?.id === newest.id)
    next.lastLine = { ...next.lastLine, text: entryText(newest) };
  return next;
}

/** Adds `e` to the counts of `t`, a copy foldJob made for this fold. */
function count(t: JobTally, e: ServerEvent): void {
  switch (e.type) {
    case 'codon.started':
      t.starts[e.data.codonId] = (own(t.starts, e.data.codonId) ?? 0) + 1;
      t.lastStarted = e.data.codonId;
      return;
    case 'rollback.completed':
      t.rollbacks += 1;
      return;
    case 'sentinel.action':
      if (!e.data.dryRun) t.sentinelActions += 1;
      return;
    case 'verify.started': {
      const { codonId, gate, gates, round } = e.data;
      // Rounds count from 0 again at each start of the codon; a feedback round starts at its first gate.
      if (round > 0 && gate === 0) t.feedbackRounds += 1;
      const first = own(t.firstRounds, codonId);
      if (first === undefined) t.firstRounds[codonId] = { state: 'open', gates, lastGate: gate };
      // The first round never ended (a crash, a retry): its gates starting over is another try.
      else if (first.state === 'open')
        t.firstRounds[codonId] = gate <= first.lastGate ? { state: 'missed' } : { ...first, lastGate: gate };
      return;
    }
    case 'verify.completed': {
      const first = own(t.firstRounds, e.data.codonId);
      if (first?.state !== 'open') return;
      const ended = !e.data.passed ? 'missed' : e.data.gate >= first.gates - 1 ? 'passed' : undefined;
      if (ended) t.firstRounds[e.data.codonId] = { state: ended };
      return;
    }
    default:
      return;
  }
}

/** The line the store made of event `id`, if it made one: its newest activity line or rollback step. */
function newLine(store: RunState, id: string): string | undefined {
  const entry = store.activity.at(-1);
  if (entry?.id === id) return entryText(entry);
  const step = store.rollback.log.at(-1);
  return step?.id === id ? oneLine(step.text, LINE_MAX) : undefined;
}

const LINE_MAX = 200;

/** An activity line on one line, as the terminal UI's activity pane words it collapsed. */
export function entryText(entry: ActivityEntry): string {
  switch (entry.kind) {
    case 'codon':
    case 'note':
      return oneLine(entry.text, LINE_MAX);
    case 'message':
      return oneLine(`says ${entry.text}`, LINE_MAX);
    case 'thinking':
      return oneLine(`thinks ${entry.text}`, LINE_MAX);
    case 'file':
      return oneLine(fileChangeText(entry), LINE_MAX);
    case 'tool': {
      const mark = toolCallMark(entry).text;
      return `${oneLine(`${entry.toolName} ${entry.summary}`, LINE_MAX - mark.length - 2)}  ${mark}`;
    }
  }
}
