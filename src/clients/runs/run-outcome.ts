/**
 * What a run came to, in the terms `ribosome replay --check` compares (docs/testing-plans.md): each
 * codon's end status, the tree of its last checkpoint, its cost and its gates' last results. Pure:
 * the state, the verify events and a tree lookup are given.
 */
import { lineageEntries } from '../../engine/checkpoint-list.ts';
import { type EngineState, latestRunId, runOf } from '../../execution/state/reducer.ts';
import type { OutcomeCodon } from '../../llm/cassette/schema.ts';

export type GateResult = { codonId: string; gate: number; command: string; passed: boolean };
/** A sentinel's output or error on a codon (its sentinel.output and sentinel.error events). */
export type SentinelNote = { codonId: string; sentinelId: string; kind: 'output' | 'error' };

export function runOutcome(
  state: EngineState,
  gates: readonly GateResult[],
  treeOf: (sha: string) => string | undefined,
  notes: readonly SentinelNote[] = [],
): OutcomeCodon[] {
  const runId = latestRunId(state);
  if (!runId) return [];
  const lineage = lineageEntries(state, runId);
  const last = new Map<string, { sha: string; status: string }>();
  for (const entry of lineage) {
    if (entry.info && entry.info.checkpointType !== 'rig-setup')
      last.set(entry.info.codonId, { sha: entry.sha, status: entry.info.status });
  }
  // The codon records of the runs in the lineage, later ones over earlier.
  const runIds = [...new Set(lineage.map((e) => e.runId)), runId];
  const records = new Map<string, { status: string; cost: number; failure?: string }>();
  for (const id of runIds) {
    for (const [codonId, record] of Object.entries(runOf(state, id)?.codons ?? {})) {
      // In one line (a gate's failure quotes its output over several), at most 300 characters.
      const said = record.status === 'failed' ? record.failureReason?.message : undefined;
      const flat = said?.replace(/\s*\n\s*/g, ' ').trim();
      const failure = flat && flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
      records.set(codonId, { status: record.status, cost: record.cost, ...(failure ? { failure } : {}) });
    }
  }
  const lastGates = new Map<string, Map<number, GateResult>>();
  for (const gate of gates) {
    const own = lastGates.get(gate.codonId) ?? new Map<number, GateResult>();
    own.set(gate.gate, gate);
    lastGates.set(gate.codonId, own);
  }
  const sentinels = new Map<string, Map<string, { id: string; outputs: number; errors: number }>>();
  for (const note of notes) {
    const own = sentinels.get(note.codonId) ?? new Map();
    const tally = own.get(note.sentinelId) ?? { id: note.sentinelId, outputs: 0, errors: 0 };
    if (note.kind === 'output') tally.outputs += 1;
    else tally.errors += 1;
    own.set(note.sentinelId, tally);
    sentinels.set(note.codonId, own);
  }
  const order = [...new Set([...records.keys(), ...last.keys()])];
  return order.map((codonId) => {
    const checkpoint = last.get(codonId);
    const tree = checkpoint ? treeOf(checkpoint.sha) : undefined;
    return {
      codonId,
      status: records.get(codonId)?.status ?? checkpoint?.status ?? 'unknown',
      ...(tree ? { tree } : {}),
      cost: records.get(codonId)?.cost ?? 0,
      ...(records.get(codonId)?.failure ? { failure: records.get(codonId)?.failure } : {}),
      gates: [...(lastGates.get(codonId)?.values() ?? [])]
        .sort((a, b) => a.gate - b.gate)
        .map((g) => ({ name: `gate ${g.gate + 1}`, command: g.command, passed: g.passed })),
      ...(sentinels.has(codonId) ? { sentinels: [...(sentinels.get(codonId)?.values() ?? [])] } : {}),
    };
  });
}

const money = (usd: number) => `$${usd.toFixed(4)}`;

/**
 * A sentinel that failed where it answered, answered where it failed, or fell silent. How many times
 * one is asked may follow timing, so counts alone that differ are not named.
 */
function sentinelDifferences(before: OutcomeCodon, after: OutcomeCodon): string[] {
  const now = new Map((after.sentinels ?? []).map((s) => [s.id, s]));
  const ids = [...new Set([...(before.sentinels ?? []).map((s) => s.id), ...now.keys()])];
  return ids.flatMap((id) => {
    const was = before.sentinels?.find((s) => s.id === id) ?? { outputs: 0, errors: 0 };
    const is = now.get(id) ?? { outputs: 0, errors: 0 };
    const failing = (was.errors === 0) !== (is.errors === 0);
    const silent = (was.outputs === 0) !== (is.outputs === 0);
    if (!failing && !silent) return [];
    const say = (s: { outputs: number; errors: number }) => `${s.outputs} outputs, ${s.errors} errors`;
    return [
      `codon ${before.codonId}: sentinel ${id} gave ${say(was)} in the recording, ${say(is)} in the replay`,
    ];
  });
}

/** What differs between a recorded outcome and a replayed one, a sentence each; empty when nothing. */
export function outcomeDifferences(
  recorded: readonly OutcomeCodon[],
  replayed: readonly OutcomeCodon[],
): string[] {
  const out: string[] = [];
  const now = new Map(replayed.map((c) => [c.codonId, c]));
  for (const before of recorded) {
    const after = now.get(before.codonId);
    if (!after) {
      out.push(`codon ${before.codonId}: ${before.status} in the recording, never run in the replay`);
      continue;
    }
    if (after.status !== before.status)
      out.push(
        `codon ${before.codonId}: ${before.status} in the recording, ${after.status} in the replay${after.failure ? ` (${after.failure})` : ''}`,
      );
    if (before.tree !== after.tree)
      out.push(
        `codon ${before.codonId}: its checkpoint's tree was ${before.tree?.slice(0, 12) ?? '(none)'}, now ${after.tree?.slice(0, 12) ?? '(none)'}: the files differ`,
      );
    if (money(before.cost) !== money(after.cost))
      out.push(`codon ${before.codonId}: it cost ${money(before.cost)}, now ${money(after.cost)}`);
    const gates = new Map(after.gates.map((g) => [g.name, g.passed]));
    for (const gate of before.gates) {
      const passed = gates.get(gate.name);
      if (passed === undefined)
        out.push(
          `codon ${before.codonId}: ${gate.name} (${gate.command ?? 'its command'}) did not run in the replay`,
        );
      else if (passed !== gate.passed)
        out.push(
          `codon ${before.codonId}: ${gate.name} (${gate.command ?? 'its command'}) ${gate.passed ? 'passed' : 'failed'} in the recording, ${passed ? 'passed' : 'failed'} in the replay`,
        );
    }
    out.push(...sentinelDifferences(before, after));
    for (const gate of after.gates)
      if (!before.gates.some((g) => g.name === gate.name))
        out.push(
          `codon ${before.codonId}: ${gate.name} (${gate.command ?? 'its command'}) is new in the replay (${gate.passed ? 'passed' : 'failed'})`,
        );
  }
  for (const after of replayed)
    if (!recorded.some((c) => c.codonId === after.codonId))
      out.push(`codon ${after.codonId}: not in the recording, ${after.status} in the replay`);
  return out;
}
