/** The outcome (run-outcome.ts) of an execution directory, read from its database and checkpoint store. */
import { lineageEntries } from '../../engine/checkpoint-list.ts';
import { openShadow } from '../../execution/export/shadow.ts';
import { type EngineState, latestRunId } from '../../execution/state/reducer.ts';
import { text } from '../../execution/workspace/user-git.ts';
import type { OutcomeCodon } from '../../llm/cassette/schema.ts';
import { journalEvents, openExecutionDb, readState } from './read-execution.ts';
import { type GateResult, runOutcome, type SentinelNote } from './run-outcome.ts';

export async function readOutcome(executionDir: string): Promise<OutcomeCodon[]> {
  const db = openExecutionDb(executionDir);
  let state: EngineState;
  const gates: GateResult[] = [];
  const notes: SentinelNote[] = [];
  try {
    state = readState(db);
    for (const json of journalEvents(db)) {
      if (!/"(?:verify\.completed|sentinel\.output|sentinel\.error)"/.test(json)) continue;
      const event = JSON.parse(json) as { type: string; data: Record<string, unknown> };
      if (event.type === 'verify.completed') gates.push(event.data as GateResult);
      const { codonId, sentinelId } = event.data as { codonId: string; sentinelId: string };
      if (event.type === 'sentinel.output') notes.push({ codonId, sentinelId, kind: 'output' });
      if (event.type === 'sentinel.error') notes.push({ codonId, sentinelId, kind: 'error' });
    }
  } finally {
    db.close();
  }
  const trees = await checkpointTrees(executionDir, state);
  return runOutcome(state, gates, (sha) => trees.get(sha), notes);
}

/**
 * The tree of each checkpoint of the latest run's lineage, in one `git rev-parse` through the store's
 * own runner (none of the user's GIT_* variables); empty when the store cannot say.
 */
async function checkpointTrees(executionDir: string, state: EngineState): Promise<Map<string, string>> {
  const runId = latestRunId(state);
  const shas = runId ? [...new Set(lineageEntries(state, runId).map((e) => e.sha))] : [];
  const shadow = shas.length > 0 ? openShadow(executionDir, executionDir) : undefined;
  if (!shadow) return new Map();
  const out = await shadow.git(['rev-parse', ...shas.map((sha) => `${sha}^{tree}`)]);
  if (out.code !== 0) return new Map();
  const trees = text(out).split('\n');
  return new Map(shas.flatMap((sha, i) => (trees[i] ? [[sha, trees[i]] as [string, string]] : [])));
}
