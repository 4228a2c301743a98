import { writeSync } from 'node:fs';

/**
 * Fault injection for tests: the named steps where a git or file operation and the state transaction
 * that records it are two halves, so a kill between them must leave a run that recovers to what the
 * state recorded. `RIBOSOME_KILL_AT=<point>[#<n>]` makes the process SIGKILL itself the n-th time (the
 * first by default) it reaches the point. Read once, at load; no other variable or option reaches it.
 */
export const KILL_POINTS = {
  'checkpoint:initial': "a run's initial checkpoint is committed in git, not yet recorded in the state",
  'checkpoint:rig-setup': 'a rig-setup checkpoint is committed in git, not yet recorded',
  'checkpoint:completed': 'a completed checkpoint is committed in git, not yet recorded',
  'checkpoint:error': 'an error checkpoint is committed in git, not yet recorded',
  'checkpoint:skipped': 'a skipped checkpoint is committed in git, not yet recorded',
  'outputs-copied': "a codon's outputFiles are copied, its end not yet recorded",
  'archive-moved': "a codon's archiveOnSuccess files are moved, neither noted nor its end recorded",
  'rollback-restored': 'a rollback wrote the target into the agent root, the run switch not yet recorded',
  'recovery-restored': "a recovery wrote the crashed run's clean point back, its new run not yet recorded",
  'retry-restored':
    "a retry brought the agent root back to the codon's start, the new attempt not yet recorded",
  'workspace-moved': "part of a workspace's clone is in the agent root, the clone not yet recorded",
  'agent-spawned': "an agent's process (its sandbox) is started, its pid not yet recorded",
} as const;

export type KillPoint = keyof typeof KILL_POINTS;

type Wanted = { point: KillPoint; nth: number };

const isKillPoint = (name: string): name is KillPoint => Object.hasOwn(KILL_POINTS, name);

/** `<point>[#<n>]`; throws on a name that is not a kill point, so a test cannot aim at nothing. */
export function parseKillAt(value: string | undefined): Wanted | undefined {
  if (value === undefined || value === '') return undefined;
  const [name = '', count] = value.split('#');
  if (!isKillPoint(name))
    throw new Error(
      `RIBOSOME_KILL_AT=${value}: no such kill point; one of ${Object.keys(KILL_POINTS).join(', ')}`,
    );
  const nth = count === undefined ? 1 : Number(count);
  if (!Number.isInteger(nth) || nth < 1)
    throw new Error(`RIBOSOME_KILL_AT=${value}: the count after # must be a whole number from 1`);
  return { point: name, nth };
}

let wanted: Wanted | undefined;
let problem: string | undefined;
try {
  wanted = parseKillAt(process.env.RIBOSOME_KILL_AT);
} catch (error) {
  problem = (error as Error).message;
}
let reached = 0;

/** What is wrong with RIBOSOME_KILL_AT, if anything: `ribosome run` refuses to start with it (exit 2). */
export const killAtProblem = (): string | undefined => problem;

/** Dies here (SIGKILL, as a power cut or the OOM killer would) when RIBOSOME_KILL_AT names this point. */
export function killPoint(point: KillPoint): void {
  if (wanted?.point !== point || ++reached < wanted.nth) return;
  // Said first, synchronously, so a test tells the planted kill from a crash elsewhere.
  writeSync(2, `ribosome: kill point ${point} reached (RIBOSOME_KILL_AT)\n`);
  process.kill(process.pid, 'SIGKILL');
}
