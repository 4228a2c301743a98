import type { ServerEventOf } from '../../../core/protocol/index.ts';
import { own } from '../../../core/protocol/own.ts';
import { oneLine } from '../format.ts';
import {
  USAGE_WAIT_ICON,
  USAGE_WAIT_WORD,
  type UsageWait,
  usageWaitEndedText,
  usageWaitRecord,
} from '../usage-wait.ts';
import { note } from './activity.ts';
import { upsertCodon } from './codons.ts';
import type { RunState } from './run-state.ts';

/**
 * The usage-limit wait in progress (docs/unattended.md#usage-limits), one value in the run's state:
 * begun by usageLimit.waiting or a state.snapshot carrying usageLimitWait; ended by usageLimit.ended,
 * any codon starting, the run ending or beginning anew, a rollback, or a snapshot without one. Its
 * codon's row says it waits (its note) for as long as the wait lasts.
 */

/** The wait `wait` begins (or goes on: a server restarted during it waits again): its codon's row says so. */
export function beginUsageWait(state: RunState, wait: UsageWait): RunState {
  const ended = endUsageWait(state);
  const marked = upsertCodon(ended, wait.codonId, (row) => ({ ...row, note: USAGE_WAIT_WORD }));
  return { ...marked, run: { ...marked.run, usageWait: wait } };
}

/** No wait any more: the run's and its codon's row's. The state itself when there was none. */
export function endUsageWait(state: RunState): RunState {
  const wait = state.run.usageWait;
  if (wait === undefined) return state;
  const { usageWait: _w, ...run } = state.run;
  const row = own(state.codons, wait.codonId);
  const unmarked =
    row?.note === USAGE_WAIT_WORD ? upsertCodon(state, wait.codonId, ({ note: _n, ...rest }) => rest) : state;
  return { ...unmarked, run };
}

const waitOf = (d: ServerEventOf<'usageLimit.waiting'>['data']): UsageWait => ({
  codonId: d.codonId,
  agent: d.agent,
  ...(d.resetsAt === undefined ? {} : { resetsAt: d.resetsAt }),
  until: d.until,
});

/** usageLimit.waiting: the wait begins, a line says until when (as it was then: no countdown in a record). */
export function usageLimitWaiting(state: RunState, e: ServerEventOf<'usageLimit.waiting'>): RunState {
  const wait = waitOf(e.data);
  const text = `${USAGE_WAIT_ICON} ${oneLine(usageWaitRecord(wait, Date.parse(e.timestamp)))}`;
  return {
    ...note(beginUsageWait(state, wait), e.id, text, 'warn'),
    notice: { text: oneLine(e.data.message), tone: 'warn' },
  };
}

/** usageLimit.ended: the time came, or a command took over. */
export function usageLimitEnded(state: RunState, e: ServerEventOf<'usageLimit.ended'>): RunState {
  return note(endUsageWait(state), e.id, `▷ ${oneLine(usageWaitEndedText(e.data))}`, 'info');
}

/** A state.snapshot says whether a wait is in progress (a client that connects mid-wait learns it here). */
export function snapshotUsageWait(state: RunState, wait: UsageWait | undefined): RunState {
  if (wait === undefined) return endUsageWait(state);
  const now = state.run.usageWait;
  const same =
    now !== undefined &&
    now.codonId === wait.codonId &&
    now.until === wait.until &&
    now.agent === wait.agent &&
    now.resetsAt === wait.resetsAt;
  return same ? state : beginUsageWait(state, wait);
}
