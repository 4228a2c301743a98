/**
 * The pure model of a `ribosome run` server for the model-based test: what each command does to the
 * execution (its lineage of codon endings, the codon running, the server up or down) and what the
 * real server must be seen to do (the error it answers, the codons it starts, how it settles).
 *
 * Written from the engine's contract, not from its code:
 * - lineage = the ordered codon endings (completed, failed, skipped, stopped) the current run
 *   inherited (parent runs up to the checkpoint it forked from) plus its own;
 * - done(c) ⇔ the latest ending of c in the lineage is completed or skipped;
 * - next = the first codon in plan order that is not done;
 * - redo = the codon X when the current run has started nothing of its own and began at the START of
 *   X (rollback.toCodon {X, start}, or recovery of a run whose last codon X failed, crashed or was
 *   stopped, or a restart after a run that was itself still at X's start); otherwise the codon that
 *   ended last in the lineage;
 * - a rollback to a checkpoint keeps the endings up to it and drops the rest; refused while a codon
 *   runs (CODON_RUNNING);
 * - after a codon ends: skipped ⇒ next starts; completed with autostart ⇒ next starts; otherwise
 *   idle (all-codons-completed when nothing is left, else codon-completed);
 * - after a rollback: autoRestart with a next ⇒ it starts; otherwise idle (same reasons);
 * - a server start on a directory whose last run crashed or failed first rolls it back to its last
 *   done point; then with autostart the next starts, without autostart idle `startup`; with every
 *   codon done, idle all-codons-completed either way.
 *
 * Where the contract leaves room, this model reads it so (one place to change if it reads otherwise):
 * - "start" of X is the checkpoint before X's latest unbroken stretch of endings, a run start breaking
 *   the stretch (spec 4.2: rig-setup, else the previous checkpoint, as the checkpoint store resolves
 *   it); the plan has no rig setup, so `rig-setup` never resolves;
 * - a run "failed" when it shuts down after starting codons of its own and the last ending of its
 *   lineage is failed or stopped;
 * - the recovery point (the "last done point") is the latest completed or skipped ending, or a later
 *   run start (a run begins at a clean point);
 * - a run still at a codon's start passes it on to the next server's run (redo runs that codon);
 * - a codon interrupted by a crash or a shutdown ends failed or stopped; recovery drops it anyway.
 *
 * Planted kills (RIBOSOME_KILL_AT, docs/operations.md#kill-points-the-steps-with-two-halves): a server started with a kill point dies
 * the n-th time it reaches it. The points here are those whose effect is a plain kill at a moment
 * the model knows: a codon's end checkpoint (`checkpoint:<kind>`, committed in git, its end not
 * recorded: the codon counts as interrupted, as if the kill came while it ran),
 * `rollback-restored` (the agent root rewritten, the run switch not recorded: as if the kill came
 * just before the rollback) and `checkpoint:initial` (a run begun by a server start or a rollback,
 * its initial checkpoint committed, not recorded: it counts, so as if the kill came just after).
 *
 * A start that finds the latest run completed and starts nothing at once begins no run: the run is
 * begun (its initial checkpoint) when a codon starts, or switched by a rollback. A kill before then
 * leaves the run completed; a kill in a rollback from it (`rollback-restored`) is undone by the next
 * start, which goes back to the run's last checkpoint.
 */

export const PLAN = ['one', 'two', 'three'] as const;
export type CodonId = string;
export type Behaviour = 'ok' | '500' | '429' | 'stuck';
export type EndStatus = 'completed' | 'failed' | 'skipped' | 'stopped';
export type IdleReason = 'startup' | 'codon-completed' | 'all-codons-completed';
export type CheckpointKind = 'completed' | 'error' | 'skipped';
export type RollbackType = 'start' | 'end' | 'rig-setup' | 'completed' | 'error' | 'skipped';

/** The kill points the model can plant (see the header); the others are left out (docs/operations.md#kill-points-the-steps-with-two-halves). */
export const PLANTED_POINTS = [
  'checkpoint:initial',
  'checkpoint:completed',
  'checkpoint:error',
  'checkpoint:skipped',
  'rollback-restored',
] as const;
export type PlantedPoint = (typeof PLANTED_POINTS)[number];
/** RIBOSOME_KILL_AT=<point>#<nth> for one server's life. */
export type KillAt = { point: PlantedPoint; nth: number };

export type Ending = { kind: 'end'; codonId: CodonId; status: EndStatus; attempt: number };
/** Where a run began (its initial checkpoint): a server start or a rollback. */
export type RunStart = { kind: 'run' };
export type Item = Ending | RunStart;

/** The expected codon.started / codon.completed sequence of the whole journal. */
export type LifecycleEntry =
  | { kind: 'started'; codonId: CodonId }
  | { kind: 'completed'; codonId: CodonId; success: boolean | 'any' };

export type Settle =
  | {
      kind: 'idle';
      reason: IdleReason;
      nextCodonId: CodonId | undefined;
      lastEnded: { codonId: CodonId; status: EndStatus } | undefined;
    }
  | { kind: 'running'; codonId: CodonId; attempt: number }
  | { kind: 'down' };

export type ModelState = {
  plan: readonly CodonId[];
  up: boolean;
  autostart: boolean;
  /** The execution directory has had a server (so a start resumes). */
  hadRuns: boolean;
  /** The current run's lineage: endings, with the run starts between them (initial checkpoints). */
  lineage: Item[];
  /** The current run has started a codon of its own. */
  ownStarted: boolean;
  /**
   * The server up began no run at its start: the latest run completed and stays the latest until a
   * codon starts (the run begun then) or a rollback switches runs (docs/checkpoints.md#what-runs-next).
   */
  runPending: boolean;
  /** A rollback from such a completed run died before its run switch: the next start undoes it. */
  rollbackCut: boolean;
  /** The current run began at the start of this codon (rollback to its start, or recovery). */
  startOf: CodonId | undefined;
  running: { codonId: CodonId; attempt: number } | undefined;
  /** Behaviours queued for the next attempts of each codon (the provider's queues). */
  pending: Record<CodonId, Behaviour[]>;
  /** Attempts so far, per codon (the provider's count: every start calls the provider once). */
  attempts: Record<CodonId, number>;
  lifecycle: LifecycleEntry[];
  /** server.idle events so far. */
  idles: number;
  /** How the server that is down stopped. */
  downBy: 'kill' | 'shutdown' | undefined;
  /** The codon that ran when the server was killed (ended by the next start). */
  interrupted: { codonId: CodonId; attempt: number } | undefined;
  /** The planted kill of the server that is up: its point, and how many more times until it dies. */
  armed: { point: PlantedPoint; left: number } | undefined;
  settle: Settle;
};

export type Action =
  | { type: 'behaviour'; codonId: CodonId; behaviour: Behaviour }
  | { type: 'codon.start'; codonId: CodonId }
  | { type: 'codon.next' }
  | { type: 'codon.redo' }
  | { type: 'codon.skip' }
  | { type: 'codon.forceStop' }
  | { type: 'rollback.toCodon'; codonId: CodonId; checkpointType: RollbackType; autoRestart: boolean }
  | { type: 'rollback.toLastSuccess'; autoRestart: boolean }
  /** `index` into the current checkpoint.list (taken modulo its length). */
  | { type: 'rollback.toCheckpoint'; index: number; autoRestart: boolean }
  | { type: 'kill' }
  | { type: 'shutdown' }
  /** `killAt`: the new server dies at that kill point (RIBOSOME_KILL_AT). */
  | { type: 'restart'; autostart: boolean; killAt?: KillAt };

/** What the real server must be seen to do for one action. */
export type Expectation = {
  /** The command is refused with this code (and nothing else happens). */
  error?: string;
  /** The server dies at this planted kill point during the action (settle is `down`). */
  planted?: PlantedPoint;
  /** Codons started by this action, in order, with the behaviour their attempt gets. */
  starts: Array<{ codonId: CodonId; attempt: number; behaviour: Behaviour }>;
  settle: Settle;
  /** For a server start on a directory with runs. */
  resume?: {
    /** How the previous run ended, as server.ready's resumed.previousRunStatus may say it. */
    previousRunStatus: Array<'running' | 'completed' | 'failed' | 'crashed'>;
    /** The previous run is rolled back to its last done point (rollback events from this server). */
    recovery: boolean;
    /** Rollback events must be seen (there was something to roll back over). */
    rollbackEvents: boolean;
    /** A codon interrupted by a kill: this server reports its codon.completed (success false). */
    interrupted: CodonId | undefined;
    done: number;
    total: number;
    nextCodonId: CodonId | undefined;
  };
};

export function initialModel(
  options: { plan?: readonly CodonId[]; pending?: Record<CodonId, Behaviour[]> } = {},
): ModelState {
  const plan = options.plan ?? PLAN;
  return {
    plan,
    up: false,
    autostart: true,
    hadRuns: false,
    lineage: [],
    ownStarted: false,
    runPending: false,
    rollbackCut: false,
    startOf: undefined,
    running: undefined,
    pending: Object.fromEntries(plan.map((c) => [c, [...(options.pending?.[c] ?? [])]])),
    attempts: Object.fromEntries(plan.map((c) => [c, 0])),
    lifecycle: [],
    idles: 0,
    downBy: undefined,
    interrupted: undefined,
    armed: undefined,
    settle: { kind: 'down' },
  };
}

// --- derived -----------------------------------------------------------------------------------------

export const isDoneStatus = (s: EndStatus) => s === 'completed' || s === 'skipped';

export const endings = (m: Pick<ModelState, 'lineage'>): Ending[] =>
  m.lineage.filter((i): i is Ending => i.kind === 'end');

const isEnd = (i: Item | undefined, codonId?: CodonId): i is Ending =>
  i?.kind === 'end' && (codonId === undefined || i.codonId === codonId);

export function done(m: ModelState, codonId: CodonId): boolean {
  const last = endings(m).findLast((e) => e.codonId === codonId);
  return last !== undefined && isDoneStatus(last.status);
}

export function nextCodon(m: ModelState): CodonId | undefined {
  return m.plan.find((c) => !done(m, c));
}

export function redoTarget(m: ModelState): CodonId | undefined {
  if (!m.ownStarted && m.startOf) return m.startOf;
  return endings(m).at(-1)?.codonId;
}

export const checkpointKind = (s: EndStatus): CheckpointKind =>
  s === 'completed' ? 'completed' : s === 'skipped' ? 'skipped' : 'error';

/** The agent root's files: each completed ending of the lineage wrote `<codon>.txt`. */
export function expectedFiles(m: ModelState, content: (codonId: CodonId, n: number) => string) {
  const files: Record<string, string> = {};
  for (const e of endings(m))
    if (e.status === 'completed') files[`${e.codonId}.txt`] = content(e.codonId, e.attempt);
  return files;
}

export function idleSettle(m: ModelState, reason?: IdleReason): Settle {
  const next = nextCodon(m);
  const last = endings(m).at(-1);
  return {
    kind: 'idle',
    reason: reason ?? (next ? 'codon-completed' : 'all-codons-completed'),
    nextCodonId: next,
    lastEnded: last ? { codonId: last.codonId, status: last.status } : undefined,
  };
}

/**
 * Where a rollback lands: how many items of the lineage it keeps, and whether at a codon's start.
 * `start` is the checkpoint before the codon's latest unbroken stretch of checkpoints (a run start
 * breaks the stretch), as the checkpoint store resolves it.
 */
export function rollbackTarget(
  m: ModelState,
  action: Extract<Action, { type: `rollback.${string}` }>,
): { keep: number; startOf?: CodonId } | { error: string } {
  const { lineage } = m;
  switch (action.type) {
    case 'rollback.toLastSuccess': {
      const at = lineage.findLastIndex((i) => isEnd(i) && i.status === 'completed');
      return at < 0 ? { error: 'NO_SUCCESSFUL_CODON' } : { keep: at + 1 };
    }
    case 'rollback.toCheckpoint': {
      const ends = endings(m);
      const target = ends[action.index % Math.max(1, ends.length)];
      return target ? { keep: lineage.indexOf(target) + 1 } : { error: 'CHECKPOINT_NOT_FOUND' };
    }
    case 'rollback.toCodon': {
      const last = lineage.findLastIndex((i) => isEnd(i, action.codonId));
      if (last < 0) return { error: 'CHECKPOINT_NOT_FOUND' };
      switch (action.checkpointType) {
        case 'start': {
          let first = last;
          while (first > 0 && isEnd(lineage[first - 1], action.codonId)) first -= 1;
          return first === 0 ? { error: 'CHECKPOINT_NOT_FOUND' } : { keep: first, startOf: action.codonId };
        }
        case 'rig-setup':
          return { error: 'CHECKPOINT_NOT_FOUND' };
        case 'end':
          return { keep: last + 1 };
        default: {
          const kind = action.checkpointType;
          const at = lineage.findLastIndex(
            (i) => isEnd(i, action.codonId) && checkpointKind(i.status) === kind,
          );
          return at < 0 ? { error: 'CHECKPOINT_NOT_FOUND' } : { keep: at + 1 };
        }
      }
    }
  }
}

/** Whether an action can be sent in this state (fast-check's precondition). */
export function applicable(m: ModelState, action: Action): boolean {
  switch (action.type) {
    case 'behaviour':
      return (m.pending[action.codonId]?.length ?? 0) < 2;
    case 'restart':
      return !m.up;
    case 'rollback.toCheckpoint':
      return m.up && endings(m).length > 0;
    default:
      return m.up;
  }
}

// --- stepping -----------------------------------------------------------------------------------------

type Draft = ModelState & { starts: Expectation['starts']; planted?: PlantedPoint };

function clone(m: ModelState): Draft {
  return { ...structuredClone(m), starts: [] };
}

function finish(d: Draft, extra: Partial<Expectation> = {}): { state: ModelState; expect: Expectation } {
  const { starts, planted, ...state } = d;
  if (state.settle.kind === 'idle') state.idles += 1;
  return { state, expect: { starts, settle: state.settle, ...(planted ? { planted } : {}), ...extra } };
}

/** The server reaches `point`: whether its planted kill fires there (then it is down, as killed). */
function diesAt(d: Draft, point: PlantedPoint, interrupted: ModelState['interrupted']): boolean {
  if (d.armed?.point !== point) return false;
  d.armed.left -= 1;
  if (d.armed.left > 0) return false;
  d.up = false;
  d.downBy = 'kill';
  d.interrupted = interrupted;
  d.running = undefined;
  d.armed = undefined;
  d.planted = point;
  d.settle = { kind: 'down' };
  return true;
}

const endPoint = (s: EndStatus): PlantedPoint => `checkpoint:${checkpointKind(s)}`;

/** Starts a codon and follows the chain it sets off until the server settles. */
function startChain(d: Draft, codonId: CodonId): void {
  if (d.runPending) {
    // The run this server did not begin at its start is begun now, with its initial checkpoint.
    d.runPending = false;
    if (diesAt(d, 'checkpoint:initial', undefined)) return;
  }
  let current: CodonId | undefined = codonId;
  while (current) {
    const attempt: number = (d.attempts[current] ?? 0) + 1;
    d.attempts[current] = attempt;
    const behaviour: Behaviour = d.pending[current]?.shift() ?? 'ok';
    d.starts.push({ codonId: current, attempt, behaviour });
    d.ownStarted = true;
    d.lifecycle.push({ kind: 'started', codonId: current });
    if (behaviour === 'stuck') {
      d.running = { codonId: current, attempt };
      d.settle = { kind: 'running', codonId: current, attempt };
      return;
    }
    const status: EndStatus = behaviour === 'ok' ? 'completed' : 'failed';
    if (diesAt(d, endPoint(status), { codonId: current, attempt })) return;
    d.lineage.push({ kind: 'end', codonId: current, status, attempt });
    d.lifecycle.push({ kind: 'completed', codonId: current, success: status === 'completed' });
    const next = nextCodon(d);
    if (status === 'completed' && d.autostart && next) {
      current = next;
      continue;
    }
    d.settle = idleSettle(d);
    return;
  }
}

/** Ends the running codon with `status`; skipped goes on with the next codon. */
function endRunning(d: Draft, status: 'skipped' | 'stopped'): void {
  const running = d.running!;
  if (diesAt(d, endPoint(status), running)) return;
  d.running = undefined;
  d.lineage.push({ kind: 'end', codonId: running.codonId, status, attempt: running.attempt });
  d.lifecycle.push({
    kind: 'completed',
    codonId: running.codonId,
    success: status === 'skipped' ? 'any' : false,
  });
  const next = nextCodon(d);
  if (status === 'skipped' && next) startChain(d, next);
  else d.settle = idleSettle(d);
}

/**
 * Where recovery brings a crashed or failed run: its last done point, the latest completed or
 * skipped ending, or a later run start (a run starts clean). Returns the items kept.
 */
function recoveryPoint(lineage: readonly Item[]): number {
  return lineage.findLastIndex((i) => i.kind === 'run' || isDoneStatus(i.status)) + 1;
}

export function step(m: ModelState, action: Action): { state: ModelState; expect: Expectation } {
  const d = clone(m);
  const refuse = (code: string) => {
    const { starts: _s, ...state } = d;
    return { state, expect: { error: code, starts: [], settle: state.settle } };
  };
  switch (action.type) {
    case 'behaviour': {
      d.pending[action.codonId]?.push(action.behaviour);
      const { starts: _s, ...state } = d;
      return { state, expect: { starts: [], settle: state.settle } };
    }
    case 'codon.start':
    case 'codon.next':
    case 'codon.redo': {
      if (d.running) return refuse('CODON_RUNNING');
      const target =
        action.type === 'codon.start'
          ? action.codonId
          : action.type === 'codon.next'
            ? nextCodon(d)
            : redoTarget(d);
      if (!target) return refuse(action.type === 'codon.next' ? 'NO_NEXT_CODON' : 'NOTHING_TO_REDO');
      startChain(d, target);
      return finish(d);
    }
    case 'codon.skip':
    case 'codon.forceStop':
      if (!d.running) return refuse('NO_CODON_RUNNING');
      endRunning(d, action.type === 'codon.skip' ? 'skipped' : 'stopped');
      return finish(d);
    case 'rollback.toCodon':
    case 'rollback.toLastSuccess':
    case 'rollback.toCheckpoint': {
      if (d.running) return refuse('CODON_RUNNING');
      const target = rollbackTarget(d, action);
      if ('error' in target) return refuse(target.error);
      const fromCompleted = d.runPending;
      if (diesAt(d, 'rollback-restored', undefined)) {
        d.rollbackCut = fromCompleted;
        return finish(d);
      }
      d.lineage = [...d.lineage.slice(0, target.keep), { kind: 'run' }];
      d.ownStarted = false;
      d.runPending = false;
      d.startOf = target.startOf;
      if (diesAt(d, 'checkpoint:initial', undefined)) return finish(d);
      const next = nextCodon(d);
      if (action.autoRestart && next) startChain(d, next);
      else d.settle = idleSettle(d);
      return finish(d);
    }
    case 'kill':
      d.up = false;
      d.armed = undefined;
      d.downBy = 'kill';
      d.interrupted = d.running;
      d.running = undefined;
      d.settle = { kind: 'down' };
      {
        const { starts: _s, ...state } = d;
        return { state, expect: { starts: [], settle: state.settle } };
      }
    case 'shutdown': {
      // The running codon's error checkpoint may be where the planted kill fires.
      if (d.running && diesAt(d, 'checkpoint:error', d.running)) return finish(d);
      if (d.running) {
        // The running codon is stopped and reported before the server exits.
        d.lineage.push({
          kind: 'end',
          codonId: d.running.codonId,
          status: 'stopped',
          attempt: d.running.attempt,
        });
        d.lifecycle.push({ kind: 'completed', codonId: d.running.codonId, success: false });
        d.running = undefined;
      }
      d.up = false;
      d.armed = undefined;
      d.downBy = 'shutdown';
      d.interrupted = undefined;
      d.settle = { kind: 'down' };
      const { starts: _s, ...state } = d;
      return { state, expect: { starts: [], settle: state.settle } };
    }
    case 'restart':
      return restart(d, action.autostart, action.killAt);
  }
}

function restart(d: Draft, autostart: boolean, killAt?: KillAt): { state: ModelState; expect: Expectation } {
  const resumed = d.hadRuns;
  let resume: Expectation['resume'];
  if (resumed) {
    if (d.interrupted) {
      // The codon the dead server ran: failed, and reported by this server.
      const { codonId, attempt } = d.interrupted;
      d.lineage.push({ kind: 'end', codonId, status: 'failed', attempt });
      d.lifecycle.push({ kind: 'completed', codonId, success: false });
    }
    const last = endings(d).at(-1);
    const broke = last !== undefined && !isDoneStatus(last.status);
    // A server killed before it began a run of its own leaves the latest run completed.
    const crashed = d.downBy === 'kill' && !d.runPending;
    // A run failed when its own last codon did not end well (it shut down after a failure).
    const failed = !crashed && d.ownStarted && broke;
    const recovery = crashed || failed || d.rollbackCut;
    // A run still at the start of a codon (it started none of its own) passes that start on.
    const carried = d.ownStarted ? undefined : d.startOf;
    d.startOf = recovery
      ? (d.interrupted?.codonId ?? carried ?? (broke ? last.codonId : undefined))
      : carried;
    if (recovery) d.lineage = d.lineage.slice(0, recoveryPoint(d.lineage));
    resume = {
      previousRunStatus: crashed ? ['crashed', 'running'] : failed ? ['failed'] : ['completed'],
      recovery,
      rollbackEvents: recovery,
      interrupted: d.interrupted?.codonId,
      done: d.plan.filter((c) => done(d, c)).length,
      total: d.plan.length,
      nextCodonId: nextCodon(d),
    };
  }
  // A start that finds the latest run completed begins none, unless it starts a codon at once.
  const runPending =
    resume !== undefined &&
    !resume.recovery &&
    resume.previousRunStatus[0] === 'completed' &&
    !(autostart && nextCodon(d));
  d.lineage.push({ kind: 'run' });
  d.runPending = runPending;
  d.rollbackCut = false;
  d.up = true;
  d.hadRuns = true;
  d.autostart = autostart;
  d.downBy = undefined;
  d.interrupted = undefined;
  d.running = undefined;
  d.ownStarted = false;
  d.armed = killAt ? { point: killAt.point, left: killAt.nth } : undefined;
  // Every other start begins a run (after a recovery, the run it returned to).
  if (!runPending && diesAt(d, 'checkpoint:initial', undefined)) return finish(d, resume ? { resume } : {});
  const next = nextCodon(d);
  if (autostart && next) startChain(d, next);
  // With every codon done the server says so, with or without autostart (docs/checkpoints.md#what-runs-next).
  else d.settle = idleSettle(d, next ? 'startup' : 'all-codons-completed');
  return finish(d, resume ? { resume } : {});
}

export function describe(action: Action): string {
  switch (action.type) {
    case 'behaviour':
      return `provider(${action.codonId}: ${action.behaviour})`;
    case 'codon.start':
      return `codon.start(${action.codonId})`;
    case 'rollback.toCodon':
      return `rollback.toCodon(${action.codonId}, ${action.checkpointType}${action.autoRestart ? ', autoRestart' : ''})`;
    case 'rollback.toLastSuccess':
      return `rollback.toLastSuccess(${action.autoRestart ? 'autoRestart' : ''})`;
    case 'rollback.toCheckpoint':
      return `rollback.toCheckpoint(#${action.index}${action.autoRestart ? ', autoRestart' : ''})`;
    case 'restart':
      return `restart(${action.autostart ? 'autostart' : '--no-autostart'}${
        action.killAt ? `, RIBOSOME_KILL_AT=${action.killAt.point}#${action.killAt.nth}` : ''
      })`;
    default:
      return action.type;
  }
}

export function describeState(m: ModelState): string {
  const lineage =
    m.lineage.map((i) => (i.kind === 'run' ? '|' : `${i.codonId}:${i.status}#${i.attempt}`)).join(' ') ||
    '(empty)';
  const settle =
    m.settle.kind === 'idle'
      ? `idle ${m.settle.reason}`
      : m.settle.kind === 'running'
        ? `running ${m.settle.codonId}`
        : 'down';
  return `[${settle}] lineage: ${lineage}; next: ${nextCodon(m) ?? '-'}; redo: ${redoTarget(m) ?? '-'}${m.startOf && !m.ownStarted ? ` (startOf ${m.startOf})` : ''}${m.armed ? `; dies at ${m.armed.point} in ${m.armed.left}` : ''}`;
}
