import type { CheckpointInfo, ServerEvent } from '../../../core/protocol/index.ts';
import { reduceRun } from '../../model/store/reduce.ts';
import { initialRunState, type RunState, type StoreAction } from '../../model/store/run-state.ts';
import { type ActivityLog, EMPTY_LOG, foldActivity } from './activity-rows.ts';
import { type CostSeries, EMPTY_SERIES, foldSeries } from './chart-series.ts';
import { type FileEntry, isDataLinkPath } from './file-tree.ts';
import { foldRuns, type RunEntry } from './lineage.ts';

/**
 * One server as the dashboard knows it: the client model's store (codons, run, sentinels, errors, rollback,
 * checkpoints: the same reducer, so both UIs tell the same story) plus what only the page shows:
 * every activity row, the files, the cost series and the runs. The TUI's own activity list is off
 * (limit 0): the page keeps its own, in full.
 */
export type DashboardState = {
  run: RunState;
  log: ActivityLog;
  series: CostSeries;
  files: ReadonlyMap<string, FileEntry>;
  runs: readonly RunEntry[];
  /** Each run's checkpoints as the last checkpoint.list answer for it listed them (the changes view's lineage). */
  listed: Readonly<Record<string, readonly CheckpointInfo[]>>;
  /** How many events were folded (the page shows it; tests read it). */
  eventCount: number;
  /** The history being folded while history.sync streams; replaces the rest at historyEnd. */
  incoming?: Folded;
};

type Folded = Omit<DashboardState, 'run' | 'incoming'>;

export function initialDashboard(url: string): DashboardState {
  return {
    run: initialRunState(url, 0),
    log: EMPTY_LOG,
    series: EMPTY_SERIES,
    files: new Map(),
    runs: [],
    listed: {},
    eventCount: 0,
  };
}

function foldFiles(files: ReadonlyMap<string, FileEntry>, events: readonly ServerEvent[]) {
  let out: Map<string, FileEntry> | undefined;
  for (const e of events) {
    if (e.type !== 'file.updated' || isDataLinkPath(e.data.path)) continue;
    out ??= new Map(files);
    // The tree is the agent root as its checkpoints hold it: a deleted file (by the agent, or by a
    // rollback's restore) leaves it, its content still in the checkpoints' diffs; a file checkpoints
    // leave out (ignored) was never in it.
    if (e.data.action === 'deleted' || e.data.ignored) {
      out.delete(e.data.path);
      continue;
    }
    out.set(e.data.path, {
      path: e.data.path,
      content: e.data.content,
      action: e.data.action,
      at: e.timestamp,
    });
  }
  return out ?? files;
}

function foldListed(listed: DashboardState['listed'], events: readonly ServerEvent[]) {
  let out: Record<string, readonly CheckpointInfo[]> | undefined;
  for (const e of events) {
    if (e.type !== 'checkpoint.list') continue;
    out ??= { ...listed };
    out[e.data.runId] = e.data.checkpoints;
  }
  return out ?? listed;
}

function foldAll(state: Folded, events: readonly ServerEvent[], ownClientIds?: readonly string[]): Folded {
  return {
    log: foldActivity(state.log, events, ownClientIds),
    series: foldSeries(state.series, events),
    files: foldFiles(state.files, events),
    runs: foldRuns(state.runs, events),
    listed: foldListed(state.listed, events),
    eventCount: state.eventCount + events.length,
  };
}

export function reduceDashboard(state: DashboardState, action: StoreAction): DashboardState {
  if (action.kind === 'historyEnd') {
    const folded = action.folded as DashboardState | undefined;
    const { incoming: own, ...shown } = state;
    const incoming = folded?.incoming ?? own;
    const run = reduceRun(state.run, { kind: 'historyEnd', ...(folded ? { folded: folded.run } : {}) });
    return incoming ? { ...shown, ...incoming, run } : { ...shown, run };
  }
  const run = reduceRun(state.run, action);
  // Lists are answers, not history: they stay when a history replaces the rest.
  const fresh = (): Folded => {
    const { run: _run, ...rest } = initialDashboard(state.run.connection.url);
    return { ...rest, listed: state.listed };
  };
  const { incoming, ...shown } = state;
  const own = run.connection.clientIds;
  switch (action.kind) {
    case 'events':
      return { ...state, ...foldAll(state, action.events, own), run };
    case 'history':
      return { ...shown, ...foldAll(fresh(), action.events, own), run };
    case 'historyBegin':
      return { ...state, run, incoming: fresh() };
    case 'historyEvents':
      return incoming ? { ...state, run, incoming: foldAll(incoming, action.events, own) } : state;
    case 'syncFailed':
      return { ...shown, run };
    default:
      return run === state.run ? state : { ...state, run };
  }
}
