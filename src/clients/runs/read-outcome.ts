/** The outcome (run-outcome.ts) of an execution directory, read from its database and checkpoint store. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { executionLayout } from '../../execution/layout/layout.ts';
import type { OutcomeCodon } from '../../llm/cassette/schema.ts';
import { journalEvents, openExecutionDb, readState } from './read-execution.ts';
import { type GateResult, runOutcome, type SentinelNote } from './run-outcome.ts';

export function readOutcome(executionDir: string): OutcomeCodon[] {
  const db = openExecutionDb(executionDir);
  try {
    const state = readState(db);
    const gates: GateResult[] = [];
    const notes: SentinelNote[] = [];
    for (const json of journalEvents(db)) {
      if (!/"(?:verify\.completed|sentinel\.output|sentinel\.error)"/.test(json)) continue;
      const event = JSON.parse(json) as { type: string; data: Record<string, unknown> };
      if (event.type === 'verify.completed') gates.push(event.data as GateResult);
      const { codonId, sentinelId } = event.data as { codonId: string; sentinelId: string };
      if (event.type === 'sentinel.output') notes.push({ codonId, sentinelId, kind: 'output' });
      if (event.type === 'sentinel.error') notes.push({ codonId, sentinelId, kind: 'error' });
    }
    const store = join(executionLayout(executionDir).internal, 'checkpoints.git');
    const treeOf = (sha: string): string | undefined => {
      try {
        return execFileSync('git', ['--git-dir', store, 'rev-parse', `${sha}^{tree}`], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim();
      } catch {
        return undefined;
      }
    };
    return runOutcome(state, gates, treeOf, notes);
  } finally {
    db.close();
  }
}
