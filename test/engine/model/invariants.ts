/**
 * The checks of the resume invariants that hold whatever commands ran, shared by the model-based
 * harness (beside its model) and the fault campaign (test/chaos/, which has no model): processes
 * from /proc, the agent root and a checkpoint's tree, the latest state.snapshot against the fold of
 * the journaled transitions, codon.started / codon.completed alternating, and events lost over a
 * restart. Each check returns its problems (empty when it holds); the caller decides how to fail.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ServerEvent, ServerEventOf } from '../../../src/core/protocol/index.ts';
import { reduceAll } from '../../../src/execution/state/reducer.ts';
import type { Transition } from '../../../src/execution/state/transitions.ts';

export type Proc = { pid: number; ppid: number; args: string[]; line: string };

/** Live (non-zombie) processes and their command lines, from /proc. */
export function processes(): Proc[] {
  const out: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const raw = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (raw === '') continue; // kernel thread or zombie
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 is the ppid; the command name (field 2) may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = raw.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
      out.push({ pid: Number(entry), ppid, args, line: args.join(' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** A `sleep <marker>` process (the long Bash command of a stuck attempt). */
export const hasMarker = (p: Proc, marker: number) => new RegExp(`(^| )sleep ${marker}( |$)`).test(p.line);

/**
 * The node processes of `ribosome agent` working in `agentRoot` (bin/ribosome's shell forks briefly
 * before it execs node, so the shell is not counted).
 */
export function agentProcs(agentRoot: string, procs = processes()): Proc[] {
  return procs.filter((p) => / \S*main\.ts agent /.test(p.line) && p.line.includes(`--cwd ${agentRoot}`));
}

/** Agent process trees: agents whose parent is not an agent (a forked child carries its command line). */
export function agentTrees(agentRoot: string, procs = processes()): Proc[] {
  const agents = agentProcs(agentRoot, procs);
  const pids = new Set(agents.map((a) => a.pid));
  return agents.filter((a) => !pids.has(a.ppid));
}

/** The files under `root`, by relative path. */
export function readTree(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path, 'utf8');
    }
  };
  if (existsSync(root)) walk(root);
  return files;
}

/** The files of commit `sha` in the shadow repository `gitDir`. */
export function gitTree(gitDir: string, sha: string): Record<string, string> {
  const git = (...args: string[]) =>
    execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' });
  const files: Record<string, string> = {};
  for (const path of git('ls-tree', '-r', '--name-only', sha).split('\n').filter(Boolean)) {
    files[path] = git('show', `${sha}:${path}`);
  }
  return files;
}

/** A file map as one comparable line. */
export function filesText(files: Record<string, string>): string {
  return (
    Object.entries(files)
      .sort()
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(' ') || '(empty)'
  );
}

/**
 * codon.started / codon.completed alternate: never two codons open at once, never a completion
 * without its start. `seen` is the sequence (+ started, - completed, ! failed); `open` the codon
 * started last and not completed.
 */
export function codonLifecycle(history: readonly ServerEvent[]): {
  seen: string[];
  open: string | undefined;
  problem: string | undefined;
} {
  const seen: string[] = [];
  let open: string | undefined;
  for (const e of history) {
    if (e.type === 'codon.started') {
      if (open)
        return {
          seen,
          open,
          problem: `two codons at once: codon.started ${e.data.codonId} while ${open} had not completed`,
        };
      open = e.data.codonId;
      seen.push(`+${e.data.codonId}`);
    } else if (e.type === 'codon.completed') {
      if (open !== e.data.codonId)
        return {
          seen,
          open,
          problem: open
            ? `codon.completed ${e.data.codonId} while ${open} ran`
            : `codon.completed ${e.data.codonId} without a codon.started (a codon completed twice?)`,
        };
      open = undefined;
      seen.push(`-${e.data.codonId}${e.data.success ? '' : '!'}`);
    }
  }
  return { seen, open, problem: undefined };
}

/** The state.transition events of a journal, as transitions, in journal order. */
export function journaledTransitions(history: readonly ServerEvent[]): Transition[] {
  return history.flatMap((e) =>
    e.type === 'state.transition' ? [e.data.transition as unknown as Transition] : [],
  );
}

/** The latest state.snapshot agrees with the fold of the state.transition events before it. */
export function snapshotProblems(history: readonly ServerEvent[]): string[] {
  const at = history.findLastIndex((e) => e.type === 'state.snapshot');
  if (at < 0) return [];
  const snapshot = history[at] as ServerEventOf<'state.snapshot'>;
  let folded: ReturnType<typeof reduceAll>;
  try {
    folded = reduceAll(journaledTransitions(history.slice(0, at)));
  } catch (error) {
    return [`the journaled state.transition events do not fold: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  const executions = [
    ...(snapshot.data.currentCodon ? [snapshot.data.currentCodon] : []),
    ...snapshot.data.completedCodons,
  ];
  for (const x of executions) {
    const owner = x.runId ? folded.runs[x.runId] : undefined;
    const record = owner?.codons[x.codonId];
    // A codon inherited from an earlier run may be shown as one of its checkpoints has it (that run
    // may have run it again afterwards); the current run's own codons are as the fold has them.
    const statuses = new Set([
      record?.status,
      ...(x.runId !== folded.currentRunId
        ? (owner?.checkpoints.filter((c) => c.codonId === x.codonId).map((c) => c.status) ?? [])
        : []),
    ]);
    if (!record) problems.push(`${x.codonId} of run ${x.runId} is not in the folded state`);
    else if (!statuses.has(x.status) || record.sessionId !== x.sessionId)
      problems.push(
        `${x.codonId} of run ${x.runId}: snapshot ${x.status}/${x.sessionId}, fold ${record.status}/${record.sessionId}`,
      );
  }
  const run = folded.currentRunId ? folded.runs[folded.currentRunId] : undefined;
  if (run) {
    for (const id of run.order) {
      if (!executions.some((x) => x.runId === run.runId && x.codonId === id))
        problems.push(`${id} of the current run is missing from the snapshot`);
    }
    const active = run.order.find((id) => ['preparing', 'running'].includes(run.codons[id]?.status ?? ''));
    if (active !== snapshot.data.currentCodon?.codonId)
      problems.push(
        `current codon: snapshot ${snapshot.data.currentCodon?.codonId ?? '(none)'}, fold ${active ?? '(none)'}`,
      );
  }
  if (Math.abs(snapshot.data.totalCost - folded.totalCost) > 1e-6)
    problems.push(`totalCost: snapshot ${snapshot.data.totalCost}, fold ${folded.totalCost}`);
  return problems.length > 0
    ? [`the latest state.snapshot disagrees with the journaled transitions: ${problems.join('; ')}`]
    : [];
}

/** Ids of journaled events a client received before a server went down that history no longer has. */
export function lostEvents(seenIds: Iterable<string>, history: readonly ServerEvent[]): string[] {
  const ids = new Set(history.map((e) => e.id));
  return [...seenIds].filter((id) => !ids.has(id));
}
