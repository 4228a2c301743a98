/**
 * Recording and replay in `ribosome run` and `ribosome replay` (docs/testing-plans.md): the proxy's
 * cassette hooks for the execution, and what the end of the run adds (the recorded outcome; the
 * replay's check against it).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EngineDeps } from '../../../engine/ports.ts';
import { latestRunId, runOf } from '../../../execution/state/reducer.ts';
import { readWorkspaceRecord } from '../../../execution/workspace/index.ts';
import type { Caller } from '../../../llm/cassette/caller.ts';
import type { CassetteHooks } from '../../../llm/cassette/hooks.ts';
import { recordHooks } from '../../../llm/cassette/record-hooks.ts';
import { replayHooks } from '../../../llm/cassette/replay-hooks.ts';
import { CASSETTE_FILE } from '../../../llm/cassette/schema.ts';
import { appendOutcome, createCassetteWriter } from '../../../llm/cassette/writer.ts';
import type { SecretRedactor } from '../../../platform/credentials/secret-redactor.ts';
import { readState } from '../../runs/read-execution.ts';
import { readOutcome } from '../../runs/read-outcome.ts';
import { outcomeDifferences } from '../../runs/run-outcome.ts';
import { hasRuns } from './execution-dir.ts';
import type { RunRequest } from './parse-flags.ts';

/**
 * The provider of a replay that asks no live one: never reached (the discard port), since every
 * request is answered from the cassette or refused.
 */
export const REPLAY_NO_PROVIDER = 'http://127.0.0.1:9';

/** The cassette of an execution directory. */
export const cassetteOf = (executionDir: string): string => join(executionDir, CASSETTE_FILE);

/**
 * Why `--record` cannot go on in this execution: it has runs that were not recorded, so its cassette
 * would start half-way and no replay could get past the codons already done.
 */
export function recordPlaceProblem(request: RunRequest, executionDir: string): string | undefined {
  if (request.cassette?.mode !== 'record' || existsSync(cassetteOf(executionDir)) || !hasRuns(executionDir))
    return undefined;
  return `--record: ${executionDir} already holds runs that were not recorded, and a cassette needs the run from its start: record into a new execution (--fresh, or another --execution)`;
}

/** The proxy's hooks for this run's recording or replay; undefined for neither. */
export function cassetteHooks(
  request: RunRequest,
  deps: Pick<EngineDeps, 'layout' | 'db' | 'bus' | 'logger'>,
  secrets: SecretRedactor | undefined,
): CassetteHooks | undefined {
  const { cassette } = request;
  if (!cassette) return undefined;
  const { layout, logger: log } = deps;
  const placeholders = { agentRoot: layout.agentRoot, execution: layout.executionDir, home: homedir() };
  const workspace = readWorkspaceRecord(layout.executionDir);
  const writer = () =>
    createCassetteWriter({
      path: cassetteOf(layout.executionDir),
      header: {
        plan: { name: request.plan.name, path: request.plan.path },
        ...(workspace ? { workspace: `${workspace.repo}@${workspace.commit}` } : {}),
        placeholders,
      },
      secrets,
      attemptOf: attempts(deps),
      onError: (error) => log.warn({ err: error }, 'an exchange could not be written to the cassette'),
    });
  if (cassette.mode === 'record') return recordHooks(writer(), { placeholders, secrets });
  const live = cassette.onMiss === 'live' || cassette.sentinels === 'live';
  return replayHooks({
    exchanges: cassette.cassette.exchanges,
    recordedPlaceholders: cassette.cassette.header.placeholders ?? {},
    placeholders,
    secrets,
    onMiss: cassette.onMiss,
    sentinels: cassette.sentinels,
    pace: cassette.pace,
    ...(live ? { writer: writer() } : {}),
    onMissed: (_caller, message) => {
      log.warn({ code: 'REPLAY_MISS' }, message);
      process.stderr.write(`ribosome: ${message}\n`);
    },
  });
}

/**
 * The attempt each codon of the current run is on (as the state counts them: its CodonStarted
 * transitions in this run), kept from the journal's state at the start and the transitions since.
 */
function attempts(deps: Pick<EngineDeps, 'db' | 'bus'>): (caller: Caller) => number | undefined {
  const state = readState(deps.db);
  const runId = latestRunId(state);
  const counts = new Map<string, number>(
    Object.entries(runId ? (runOf(state, runId)?.codons ?? {}) : {}).map(([id, codon]) => [
      id,
      codon.attempt,
    ]),
  );
  deps.bus.subscribe((event) => {
    if (event.type !== 'state.transition') return;
    const { transitionType, transition } = event.data;
    if (transitionType === 'RunStarted') counts.clear();
    if (transitionType === 'CodonStarted') {
      const id = String((transition.data as { codonId?: string }).codonId);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  });
  return (caller) => counts.get(caller.id);
}

/**
 * After the run: a recording appends its outcome to the cassette; a replay with --check compares its
 * outcome with the recording's and prints what differs. Returns the exit code, made 1 by a difference.
 */
export async function finishCassette(
  request: RunRequest,
  executionDir: string,
  code: number,
): Promise<number> {
  const { cassette } = request;
  // The run's own cassette (a recording, or a replay that asked the live provider) ends with its outcome.
  const file = cassetteOf(executionDir);
  const own = cassette !== undefined && existsSync(file);
  const checked = cassette?.mode === 'replay' && cassette.check;
  if (!cassette || (!own && !checked)) return code;
  const outcome = await readOutcome(executionDir);
  if (own) {
    try {
      appendOutcome(file, outcome);
      process.stderr.write(`ribosome: recorded the run's LLM exchanges in ${file}\n`);
    } catch (error) {
      process.stderr.write(`ribosome: could not add the outcome to ${file}: ${(error as Error).message}\n`);
    }
  }
  if (cassette.mode === 'record' || !cassette.check) return code;
  const recorded = cassette.recordedExecution
    ? await readOutcome(cassette.recordedExecution)
    : cassette.cassette.outcome?.codons;
  if (!recorded) {
    process.stderr.write(
      `ribosome: --check: ${cassette.path} holds no outcome (the recorded run never ended), so there is nothing to compare\n`,
    );
    return code === 0 ? 1 : code;
  }
  const differences = outcomeDifferences(recorded, outcome);
  if (differences.length === 0) {
    process.stderr.write(
      `ribosome: --check: the replay matches the recording (${recorded.length} codons: statuses, checkpoint trees, costs, gates)\n`,
    );
    return code;
  }
  process.stderr.write(
    `ribosome: --check: the replay differs from the recording (exit 1):\n${differences.map((d) => `  - ${d}`).join('\n')}\n`,
  );
  return code === 0 ? 1 : code;
}
