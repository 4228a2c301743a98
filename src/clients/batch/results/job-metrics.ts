import { existsSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { own, parseServerEvent, type ServerEvent } from '../../../core/protocol/index.ts';
import { executionLayout } from '../../../execution/layout/layout.ts';
import { type EngineState, initialState } from '../../../execution/state/reducer.ts';
import { totalTokens } from '../../model/store/totals.ts';
import {
  firstEventId,
  journalEventsAfter,
  openExecutionDb,
  type RunRow,
  readPlanRecord,
  readStateAfter,
  runRows,
} from '../../runs/index.ts';
import type { JobMetrics } from '../summary-schema.ts';
import { emptyTally, foldJob, type JobTally } from './job-tally.ts';

/**
 * What a job's execution says so far (summary-schema.ts JobMetrics), read as `ribosome runs` and
 * `ribosome log` read it: the database opened read-only (a WAL reader: it works while the job's
 * server writes, and writes nothing), the journal folded through the clients' store. Codons done and
 * the failure are the latest run's lineage's; cost, tokens and tallies the whole execution's.
 * Undefined while the directory holds no execution (its server has not created one yet).
 *
 * `cache`: a reader polling running jobs keeps one (one Map for all of them): each read then folds
 * only what was recorded since the last. On an execution of 10 000 events, a first read takes a few
 * tenths of a second, a read with nothing new under a millisecond. Drop a job's entry once it ended.
 */
export type MetricsCache = Map<string, Read>;
/** What a read got to: the journal it read (its first event), and how far in its transitions and events. */
type Read = {
  journalId: string | undefined;
  transitions: { state: EngineState; seq: number };
  journal: { seq: number; tally: JobTally };
};

export function jobMetrics(
  executionDir: string,
  now = new Date(),
  cache?: MetricsCache,
): JobMetrics | undefined {
  if (!existsSync(executionLayout(executionDir).database)) return undefined;
  const db = openExecutionDb(executionDir);
  try {
    const plan = readPlanRecord(executionDir);
    const journalId = firstEventId(db);
    const cached = cache?.get(executionDir);
    // Another database in the same place (the job's directory made anew) is read from its start.
    const from = cached !== undefined && cached.journalId === journalId ? cached : startOf(journalId);
    const transitions = readStateAfter(db, from.transitions);
    const journal = readJournalAfter(db, from.journal);
    cache?.set(executionDir, { journalId, transitions, journal });
    // Only each run's codons and endings are read: whether its server lives changes none of them.
    const rows = runRows(transitions.state, { plan, serverAlive: true, lastEventAt: new Map(), now });
    const tally = journal.tally;
    return metricsOf(rows.at(-1), tally, plan?.codons.length ?? null);
  } finally {
    db.close();
  }
}

const startOf = (journalId: string | undefined): Read => ({
  journalId,
  transitions: { state: initialState(), seq: 0 },
  journal: { seq: 0, tally: emptyTally() },
});

/**
 * Journaled events neither the store (fold-event.ts) nor the tally folds: they can be large (a whole
 * file tree, a gate's output), and reading them would only cost.
 */
const UNUSED = ['filetree.updated', 'verify.output', 'checkpoint.diff', 'sentinel.triggered'];

function readJournalAfter(db: DatabaseSync, from: Read['journal']): Read['journal'] {
  const events: ServerEvent[] = [];
  let seq = from.seq;
  for (const row of journalEventsAfter(db, from.seq, UNUSED)) {
    seq = row.seq;
    const parsed = parseServerEvent(JSON.parse(row.json));
    // An event this version does not know (a newer server's) is left out, as `ribosome log` does.
    if (parsed.ok) events.push(parsed.event);
  }
  return { seq, tally: foldJob(from.tally, events) };
}

/** The metrics of the latest run's row (undefined before the first run) and the journal's tally. Pure. */
export function metricsOf(
  latest: RunRow | undefined,
  tally: JobTally,
  planCodons: number | null,
): JobMetrics {
  const { run, codons } = tally.store;
  const tokens = totalTokens(run);
  const running = Object.values(codons).find((c) => c.status === 'preparing' || c.status === 'running');
  const currentCodon = running?.codonId ?? tally.lastStarted;
  const failedId = latest?.failed[0];
  const reason = failedId === undefined ? undefined : own(codons, failedId)?.failureReason;
  // A client's stop (or a sentinel's halt) carries no type of its own: `stopped` says more than `unknown`.
  const stopped = failedId !== undefined && latest?.stopped.includes(failedId) === true;
  const why =
    reason && (reason.type !== 'unknown' || !stopped) ? reason.type : stopped ? 'stopped' : 'unknown';
  const firstRounds = Object.values(tally.firstRounds);
  return {
    codonsDone: latest?.done ?? 0,
    codonsTotal: latest?.total ?? planCodons,
    ...(currentCodon === undefined ? {} : { currentCodon }),
    costUsd: run.totalCost,
    costEstimated: run.totalCostEstimated === true,
    // As the terminal UI and the dashboard say "in": cache reads and writes are counted apart there.
    inputTokens: tokens.input,
    outputTokens: tokens.output,
    retries:
      Object.values(tally.starts).reduce((sum, n) => sum + Math.max(0, n - 1), 0) + tally.feedbackRounds,
    rollbacks: tally.rollbacks,
    sentinelActions: tally.sentinelActions,
    gatedCodons: firstRounds.length,
    gatesFirstTry: firstRounds.filter((r) => r.state === 'passed').length,
    ...(failedId === undefined
      ? {}
      : {
          failure: {
            codonId: failedId,
            reason: why,
            message: reason?.message ?? '',
          },
        }),
    ...(tally.lastLine
      ? { lastEvent: { type: tally.lastLine.type, at: tally.lastLine.at, text: tally.lastLine.text } }
      : {}),
    ...(run.usageWait ? { usageWait: run.usageWait } : {}),
  };
}
