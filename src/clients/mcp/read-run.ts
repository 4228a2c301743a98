import { basename, resolve } from 'node:path';
import { parseServerEvent, type ServerEvent } from '../../core/protocol/index.ts';
import { executionsIn } from '../../execution/layout/executions-in.ts';
import type { EngineState } from '../../execution/state/reducer.ts';
import {
  approvalWaitOf,
  lastEventTimes,
  latestEvents,
  liveServerUrl,
  openExecutionDb,
  type RunRow,
  readPlanRecord,
  readRuns,
  readState,
  runRows,
  usageWaitOf,
} from '../runs/index.ts';
import { type RunStatus, runStatus } from './status.ts';
import type { Target } from './target.ts';

/** The events that say whether a server idles: the newest of them is a server.idle while it does. */
const TURN_EVENTS = ['server.idle', 'codon.started', 'rollback.started'];

/**
 * An execution's status from its files (the database is read, never written: it works while a server
 * runs, and after one stopped), as `ribosome runs` reads them.
 */
export function readStatus(target: Target): RunStatus {
  const db = openExecutionDb(target.dir);
  try {
    const state = readState(db);
    const plan = readPlanRecord(target.dir);
    const latest = state.runOrder.at(-1);
    const wait = latest === undefined ? undefined : usageWaitOf(db, latest);
    const rows = runRows(state, {
      plan,
      serverAlive: target.url !== undefined,
      lastEventAt: lastEventTimes(db),
      now: new Date(),
      ...(wait && latest ? { usageWaits: new Map([[latest, wait]]) } : {}),
      approvalWait: approvalWaitOf(db),
    });
    const [turn] = latestEvents(db, 1, TURN_EVENTS).map((json) => JSON.parse(json) as ServerEvent);
    return runStatus({
      execution: target.dir,
      server: target.url,
      state,
      plan,
      latestRun: rows.at(-1),
      lastTurn: turn,
    });
  } finally {
    db.close();
  }
}

/** The newest `limit` journaled events, parsed (those that do not parse are left out). */
export function readLatestEvents(dir: string, limit: number): ServerEvent[] {
  const db = openExecutionDb(dir);
  try {
    return latestEvents(db, limit).flatMap((json) => {
      const parsed = parseServerEvent(JSON.parse(json));
      return parsed.ok ? [parsed.event] : [];
    });
  } finally {
    db.close();
  }
}

/** An execution's state from its files, as `ribosome runs` reads it. */
export function readExecutionState(dir: string): EngineState {
  const db = openExecutionDb(dir);
  try {
    return readState(db);
  } finally {
    db.close();
  }
}

/** One execution under a directory, as list_executions shows it. */
export type ExecutionEntry = {
  name: string;
  dir: string;
  plan: string | undefined;
  server: string | undefined;
  runs: number;
  latest: Pick<RunRow, 'id' | 'status' | 'done' | 'total' | 'cost' | 'startedAt'> | undefined;
};

/** The executions right under `parent`, each with its latest run; one it cannot read says so in `latest`'s absence. */
export function listExecutions(parent: string): ExecutionEntry[] {
  return executionsIn(resolve(parent)).map((dir) => {
    let rows: RunRow[] = [];
    try {
      rows = readRuns(dir);
    } catch {
      // Unreadable now (a database being made): listed without runs.
    }
    const latest = rows.at(-1);
    return {
      name: basename(dir),
      dir,
      plan: readPlanRecord(dir)?.name,
      server: liveServerUrl(dir),
      runs: rows.length,
      latest: latest
        ? {
            id: latest.id,
            status: latest.status,
            done: latest.done,
            total: latest.total,
            cost: latest.cost,
            startedAt: latest.startedAt,
          }
        : undefined,
    };
  });
}
