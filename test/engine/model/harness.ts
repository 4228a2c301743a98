/**
 * The real side of the model-based test: one execution directory, the controllable provider, the
 * `ribosome run` process (killed, shut down and started again), a client, and the checks that hold
 * after every step. A check that does not hold throws a ModelFailure naming the rule it broke.
 *
 * Every wait is for something to be seen (an event, a process) and is bounded; nothing sleeps a
 * fixed time. Everything started here is ended by `dispose` (and, as a last resort, when the test
 * process exits).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { isJournaled, type ServerEvent, type ServerEventOf } from '../../../src/core/protocol/index.ts';
import { killUntilNone } from '../../helpers/processes.ts';
import { sandboxOnLine } from '../../helpers/sandbox-support.ts';

/** Whether the model's plans run their agents in the sandbox (then a killed server takes them along). */
const SANDBOXED = sandboxOnLine() !== '';

import { bounded, exitText, firstListening } from '../../helpers/server-process.ts';
import {
  agentProcs,
  agentTrees,
  codonLifecycle,
  filesText,
  gitTree,
  hasMarker,
  lostEvents,
  type Proc,
  processes,
  readTree,
  snapshotProblems,
} from './invariants.ts';
import {
  type Action,
  checkpointKind,
  describe,
  describeState,
  type Expectation,
  endings,
  expectedFiles,
  type KillAt,
  type ModelState,
  PLAN,
  type PlantedPoint,
} from './model.ts';
import { type Attempt, fileContent, type ModelProvider, startModelProvider } from './provider.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

export class ModelFailure extends Error {
  override name = 'ModelFailure';
}

/** Figures over every harness of this process (the soak prints them). */
export const stats = {
  sequences: 0,
  steps: 0,
  kills: 0,
  /** Servers that died at the kill point planted in them (RIBOSOME_KILL_AT), where the model said. */
  plantedKills: 0,
  /** The same, by kill point. */
  plantedAt: {} as Record<string, number>,
  shutdowns: 0,
  restarts: 0,
  eventsChecked: 0,
};

export type HarnessOptions = {
  /** The `ribosome` executable (default bin/ribosome of this repository; env RIBOSOME_MODEL_BIN). */
  bin?: string;
  settleTimeoutMs?: number;
  /** Progress lines (the soak's verbose mode). */
  log?: (line: string) => void;
  /**
   * Checks to leave out, to look past a known failure (env RIBOSOME_MODEL_IGNORE, comma-separated):
   * idle-reason, idle-fields, idle-count, resumed. The model does not depend on them.
   */
  ignore?: readonly string[];
};

export const IGNORABLE = ['idle-reason', 'idle-fields', 'idle-count', 'resumed'] as const;

type Exit = { code: number | null; signal: NodeJS.Signals | null };

type ServerProc = {
  child: ChildProcess;
  pid: number;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Exit>;
  exit: Exit | undefined;
  /** Date.now() just before the process was spawned. */
  spawnedAt: number;
};

type Settled =
  | { kind: 'error'; code: string; message: string }
  | { kind: 'idle'; event: ServerEventOf<'server.idle'> }
  | { kind: 'running'; codonId: string; attempt: Attempt }
  | { kind: 'exited'; exit: Exit };

/** Every process group started by any harness, so an aborted test still ends them. */
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
  Harness.abandonAll();
});

export class Harness {
  readonly dir: string;
  readonly exec: string;
  readonly agentRoot: string;
  readonly planFile: string;
  readonly provider: ModelProvider;
  readonly #bin: string;
  readonly #settleTimeoutMs: number;
  readonly #logLine: (line: string) => void;
  readonly #ignore: Set<string>;
  #server: ServerProc | undefined;
  #client: RibosomeClient | undefined;
  /** The journal as far as this harness knows it, in journal order. */
  #log: ServerEvent[] = [];
  #ids = new Set<string>();
  /** Journaled events the current client received live, in arrival order. */
  #live: ServerEvent[] = [];
  #commandErrors = new Map<string, ServerEventOf<'error'>>();
  /** Ids of journaled events received from the server that went down (rule f). */
  #beforeDown: string[] | undefined;
  /** server.idle events a server may publish while it shuts down (not part of the model's count). */
  #idleAllowance = 0;
  #shutdownSentAt: number | undefined;
  /** Which optional fields of server.idle this engine has been seen to send. */
  #idleFields = { nextCodonId: false, lastEnded: false };
  /** The model's state after the step being performed (for failure reports). */
  #expected: ModelState | undefined;
  /** Steps and what was seen, for failure reports. */
  readonly trace: string[] = [];
  #disposed = false;

  private constructor(dir: string, provider: ModelProvider, options: HarnessOptions) {
    this.dir = dir;
    this.exec = join(dir, 'exec');
    this.agentRoot = join(this.exec, 'agentRoot');
    this.planFile = join(dir, 'plan.yaml');
    this.provider = provider;
    this.#bin = options.bin ?? process.env.RIBOSOME_MODEL_BIN ?? join(ROOT, 'bin/ribosome');
    this.#settleTimeoutMs = options.settleTimeoutMs ?? 60_000;
    this.#logLine = options.log ?? (() => {});
    this.#ignore = new Set(
      options.ignore ?? (process.env.RIBOSOME_MODEL_IGNORE ?? '').split(',').filter(Boolean),
    );
    for (const name of this.#ignore)
      if (!(IGNORABLE as readonly string[]).includes(name))
        throw new Error(`cannot ignore "${name}"; checks that can be left out: ${IGNORABLE.join(', ')}`);
  }

  static async create(options: HarnessOptions = {}): Promise<Harness> {
    // A test that timed out goes on in the background: it starts no new server once disposed of.
    if (Harness.#closed) throw new Error('the model harness was closed (the test ended)');
    const provider = await startModelProvider();
    const h = new Harness(mkdtempSync(join(tmpdir(), 'ribosome-model-')), provider, options);
    Harness.#active.add(h);
    const plan = PLAN;
    writeFileSync(
      h.planFile,
      `name: model\nagent: builtin\n${sandboxOnLine()}codons:\n${plan
        .map((id) => `  - id: ${id}\n    name: Codon ${id}\n    prompt: Do ${id}.\n`)
        .join('')}`,
    );
    stats.sequences += 1;
    return h;
  }

  static readonly #active = new Set<Harness>();
  static #closed = false;

  /** For a process that exits before its harnesses were disposed: ends what they left, at once. */
  static abandonAll(): void {
    for (const h of Harness.#active) {
      for (const p of h.#leftovers()) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {}
      }
      rmSync(h.dir, { recursive: true, force: true });
    }
  }

  /** Disposes every harness not yet disposed (for an interrupted soak). */
  static async disposeAll(): Promise<void> {
    Harness.#closed = true;
    await Promise.all([...Harness.#active].map((h) => h.dispose()));
  }

  /** Ends the server, every agent and tool this execution left, the provider, and the directory. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    Harness.#active.delete(this);
    stats.eventsChecked += this.#log.length;
    await this.#client?.close().catch(() => {});
    const server = this.#server;
    if (server && !server.exit) {
      killGroup(server.pid);
      await bounded(server.exited, 10_000);
    }
    if (server) liveGroups.delete(server.pid);
    // Agents and tools the server left (a kill leaves them on purpose).
    await killUntilNone(() => this.#leftovers());
    await this.provider.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  #note(line: string): void {
    this.trace.push(line);
    this.#logLine(`  ${line}`);
  }

  // --- processes ------------------------------------------------------------------------------------------

  #agents(procs = processes()): Proc[] {
    return agentProcs(this.agentRoot, procs);
  }

  #markerProcs(procs = processes()): Array<Proc & { marker: number }> {
    const markers = this.provider.attempts.flatMap((a) => (a.marker ? [a.marker] : []));
    return procs.flatMap((p) => {
      const marker = markers.find((m) => hasMarker(p, m));
      return marker ? [{ ...p, marker }] : [];
    });
  }

  #leftovers(): Proc[] {
    const procs = processes();
    return [...this.#agents(procs), ...this.#markerProcs(procs)].filter((p) => p.pid !== process.pid);
  }

  #agentTrees(procs = processes()): Proc[] {
    return agentTrees(this.agentRoot, procs);
  }

  /** Rule (a) from /proc: at most one agent process tree of this execution at any time. */
  #checkOneAgent(procs = processes()): void {
    const agents = this.#agentTrees(procs);
    if (agents.length > 1) {
      throw this.#failure(
        `two codons at once: ${agents.length} agent process trees run for this execution:\n${agents
          .map((a) => `  ${a.pid} (parent ${a.ppid}) ${a.line}`)
          .join('\n')}`,
      );
    }
  }

  // --- server ---------------------------------------------------------------------------------------------

  /** With `killAt`, a server that dies at its kill point before it listens is returned (no url). */
  async #spawn(autostart: boolean, killAt?: KillAt): Promise<ServerProc> {
    const args = ['run', this.planFile, '--headless', '--execution', this.exec];
    args.push('--provider-base-url', this.provider.url);
    if (!autostart) args.push('--no-autostart');
    const spawnedAt = Date.now();
    const child = spawn(this.#bin, args, {
      cwd: ROOT,
      env: {
        ...process.env,
        RIBOSOME_AGENT_MAX_RETRIES: '0',
        RIBOSOME_KILL_AT: killAt ? `${killAt.point}#${killAt.nth}` : '',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid === undefined) throw new Error(`could not start ${this.#bin}`);
    liveGroups.add(child.pid);
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.length > 200_000) err = err.slice(-100_000);
    });
    const proc: ServerProc = {
      child,
      pid: child.pid,
      url: '',
      stdout: () => out,
      stderr: () => err,
      spawnedAt,
      exit: undefined,
      exited: new Promise<Exit>((r) => {
        child.once('exit', (code, signal) => {
          proc.exit = { code, signal };
          r({ code, signal });
        });
      }),
    };
    const listened = await firstListening(child, proc.stdout, proc.exited, 30_000);
    if ('timedOut' in listened)
      throw this.#failure(`the server did not print its listening line within 30 s:\n${err}`);
    if ('exited' in listened && killAt) return proc;
    if ('exited' in listened)
      throw this.#failure(
        `the server exited (${exitText(listened.exited)}) before listening:\n${err.slice(-4000)}`,
      );
    proc.url = listened.url;
    return proc;
  }

  async #connect(url: string): Promise<RibosomeClient> {
    const client = await RibosomeClient.connect(url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
      keepEvents: 0,
      connectTimeoutMs: 15_000,
    });
    this.#live = [];
    client.onEvent((e) => this.#onEvent(e));
    return client;
  }

  #onEvent(e: ServerEvent): void {
    if (e.type === 'error' && e.data.commandId) {
      this.#commandErrors.set(e.data.commandId, e);
      return;
    }
    if (!isJournaled(e.type)) return;
    this.#live.push(e);
    if (!this.#ids.has(e.id)) {
      this.#ids.add(e.id);
      this.#log.push(e);
    }
  }

  /** history.sync; the known journal becomes what it returned plus what arrived live after it. */
  async #sync(): Promise<ServerEvent[]> {
    const client = this.#requireClient();
    const liveFrom = this.#live.length;
    const history = await client.syncHistory(30_000).catch((error: unknown) => {
      throw this.#failure(`history.sync did not complete: ${(error as Error).message}`);
    });
    if (client.invalidFrames.length > 0)
      throw this.#failure(`events that fail their schema: ${client.invalidFrames.slice(0, 3).join('\n')}`);
    const ids = new Set(history.map((e) => e.id));
    const tail = this.#live.slice(liveFrom).filter((e) => !ids.has(e.id));
    this.#log = [...history, ...tail];
    this.#ids = new Set(this.#log.map((e) => e.id));
    return history;
  }

  #requireClient(): RibosomeClient {
    if (!this.#client) throw new Error('no client');
    return this.#client;
  }

  // --- actions --------------------------------------------------------------------------------------------

  /** Performs one action on the real server and checks it against what the model expects. */
  async perform(action: Action, before: ModelState, after: ModelState, expect: Expectation): Promise<void> {
    stats.steps += 1;
    this.#expected = after;
    const label = describe(action);
    this.#note(`${label}  → expected ${expectText(expect)}`);
    switch (action.type) {
      case 'behaviour':
        this.provider.setNext(action.codonId, action.behaviour);
        return;
      case 'kill':
        return this.#kill(before);
      case 'shutdown':
        return this.#shutdown(before, expect);
      case 'restart':
        return this.#restart(action.autostart, action.killAt, after, expect);
      default:
        return this.#command(action, after, expect);
    }
  }

  async #command(
    action: Exclude<Action, { type: 'behaviour' | 'kill' | 'shutdown' | 'restart' }>,
    after: ModelState,
    expect: Expectation,
  ): Promise<void> {
    const client = this.#requireClient();
    const cursor = this.#log.length;
    const attemptsAt = this.provider.attempts.length;
    let id: string;
    switch (action.type) {
      case 'codon.start':
        id = client.send('codon.start', { codonId: action.codonId });
        break;
      case 'codon.next':
      case 'codon.redo':
      case 'codon.skip':
        id = client.send(action.type);
        break;
      case 'codon.forceStop':
        id = client.send('codon.forceStop', { reason: 'model test' });
        break;
      case 'rollback.toCodon':
        id = client.send('rollback.toCodon', {
          codonId: action.codonId,
          checkpointType: action.checkpointType,
          autoRestart: action.autoRestart,
        });
        break;
      case 'rollback.toLastSuccess':
        id = client.send('rollback.toLastSuccess', { autoRestart: action.autoRestart });
        break;
      case 'rollback.toCheckpoint': {
        const list = await this.#checkpointList();
        const entry = list[action.index % Math.max(1, list.length)];
        if (!entry) throw this.#failure('checkpoint.list is empty, but the model has endings');
        this.#note(
          `  (checkpoint #${action.index % list.length}: ${entry.codonId} ${entry.checkpointType} ${entry.sha.slice(0, 10)})`,
        );
        id = client.send('rollback.toCheckpoint', {
          checkpointSha: entry.sha,
          autoRestart: action.autoRestart,
        });
        break;
      }
    }
    if (expect.planted) return this.#diesAt(expect.planted, expect, cursor, attemptsAt);
    const settled = await this.#settle(cursor, attemptsAt, id);
    this.#compareSettled(settled, expect, cursor, attemptsAt);
    await this.#quietChecks(after);
  }

  async #kill(before: ModelState): Promise<void> {
    const server = this.#requireServer();
    stats.kills += 1;
    // Rule (f): every journaled event received so far must survive the kill.
    const seen = [...this.#ids];
    const runningMarker = before.running ? this.#attemptOf(before.running)?.marker : undefined;
    killGroup(server.pid);
    const exit = await bounded(server.exited, 10_000);
    if (!exit) throw this.#failure('the server did not die within 10 s of SIGKILL');
    liveGroups.delete(server.pid);
    await this.#client?.close();
    this.#client = undefined;
    this.#beforeDown = seen;
    const left = () => this.#markerProcs().some((p) => p.marker === runningMarker);
    if (runningMarker && SANDBOXED) {
      // In the sandbox the agent dies with the server that started it (bwrap --die-with-parent).
      const deadline = Date.now() + 10_000;
      while (left() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (left())
        throw this.#failure(`the sandboxed agent's sleep ${runningMarker} outlived its killed server`);
    } else if (runningMarker && !left()) {
      // Unconfined, the agent runs in its own process group: the kill must have left it (the restart ends it).
      throw this.#failure(`harness: killing the server also ended the agent's sleep ${runningMarker}`);
    }
    this.#note(
      `  killed (SIGKILL)${runningMarker ? `; sleep ${runningMarker} ${SANDBOXED ? 'ended with it (sandbox)' : 'left running'}` : ''}`,
    );
  }

  async #shutdown(before: ModelState, expect: Expectation): Promise<void> {
    const server = this.#requireServer();
    const client = this.#requireClient();
    stats.shutdowns += 1;
    this.#shutdownSentAt = Date.now();
    const liveFrom = this.#live.length;
    const cursor = this.#log.length;
    client.send('server.shutdown', { reason: 'model test' });
    if (expect.planted) return this.#diesAt(expect.planted, expect, cursor, this.provider.attempts.length);
    const exit = await bounded(server.exited, 30_000);
    if (!exit) throw this.#failure('the server did not exit within 30 s of server.shutdown');
    liveGroups.delete(server.pid);
    if (exit.code !== 0) throw this.#failure(`server.shutdown: the server exited with ${exitText(exit)}`);
    // The stopped codon's codon.completed is checked in the journal after the restart.
    const running = before.running?.codonId;
    const completed = this.#live
      .slice(liveFrom)
      .find((e) => e.type === 'codon.completed' && e.data.codonId === running);
    if (running && completed?.type === 'codon.completed' && completed.data.success)
      throw this.#failure(`server.shutdown stopped ${running}, but its codon.completed says success: true`);
    this.#beforeDown = [...this.#ids];
    await client.close();
    this.#client = undefined;
    // Rule (g): a server that shuts down ends its agent.
    await this.#expectNoAgents('after server.shutdown');
    this.#note(`  shut down (${exitText(exit)})`);
  }

  async #restart(
    autostart: boolean,
    killAt: KillAt | undefined,
    after: ModelState,
    expect: Expectation,
  ): Promise<void> {
    if (this.#server) stats.restarts += 1;
    const attemptsAt = this.provider.attempts.length;
    const server = await this.#spawn(autostart, killAt);
    this.#server = server;
    this.#commandErrors.clear();
    if (expect.planted) {
      // It dies while it starts: watched live as long as it lets a client in; its journal, the
      // resumed fields and the recovery are checked after the next start.
      const cursor = this.#log.length;
      if (server.url && !server.exit) this.#client = await this.#connect(server.url).catch(() => undefined);
      return this.#diesAt(expect.planted, expect, cursor, attemptsAt);
    }
    this.#client = await this.#connect(server.url);
    const ready = this.#client.serverInfo;
    const history = await this.#sync();
    // Events of this server: journaled after it was spawned (the previous one was dead by then).
    let cursor = history.findIndex((e) => Date.parse(e.timestamp) >= server.spawnedAt);
    if (cursor < 0) cursor = history.length;

    // Rule (f): nothing a client received from the previous server is lost.
    if (this.#beforeDown) {
      const lost = lostEvents(this.#beforeDown, history);
      if (lost.length > 0)
        throw this.#failure(
          `${lost.length} journaled event(s) received before the server went down are not in history.sync after the restart`,
        );
      this.#beforeDown = undefined;
    }
    const shutdownAt = this.#shutdownSentAt;
    if (shutdownAt !== undefined) {
      this.#idleAllowance += history.filter((e) => {
        const t = Date.parse(e.timestamp);
        return e.type === 'server.idle' && t >= shutdownAt && t < server.spawnedAt;
      }).length;
      this.#shutdownSentAt = undefined;
    }

    const settled = await this.#settle(cursor, attemptsAt, undefined);
    this.#compareSettled(settled, expect, cursor, attemptsAt);

    // server.ready's resumed, when the engine sends it.
    const resumed = ready.resumed;
    const resume = expect.resume;
    if (!resume && resumed)
      throw this.#failure(`server.ready has resumed on a fresh directory: ${JSON.stringify(resumed)}`);
    if (resume && resumed && !this.#ignore.has('resumed')) {
      const runs = this.#log.filter(
        (e) => e.type === 'state.transition' && e.data.transitionType === 'RunStarted',
      ).length;
      const problems: string[] = [];
      // No command has run since the handshake, so the journal holds exactly the runs resumed knew of.
      if (resumed.runCount !== runs) problems.push(`runCount ${resumed.runCount}, journal has ${runs} runs`);
      if (resumed.done !== resume.done) problems.push(`done ${resumed.done}, model ${resume.done}`);
      if (resumed.total !== resume.total) problems.push(`total ${resumed.total}, model ${resume.total}`);
      if (resumed.nextCodonId !== resume.nextCodonId)
        problems.push(
          `nextCodonId ${resumed.nextCodonId ?? '(none)'}, model ${resume.nextCodonId ?? '(none)'}`,
        );
      if (!resume.previousRunStatus.includes(resumed.previousRunStatus))
        problems.push(
          `previousRunStatus ${resumed.previousRunStatus}, model ${resume.previousRunStatus.join(' or ')}`,
        );
      if (problems.length > 0) throw this.#failure(`server.ready resumed: ${problems.join('; ')}`);
    }
    if (resume) {
      const mine = this.#log.slice(cursor);
      const rollbacks = mine.filter((e) => e.type === 'rollback.completed').length;
      if (resume.rollbackEvents && rollbacks === 0)
        throw this.#failure(
          'the previous run crashed or failed, but this server did not roll it back (no rollback.completed)',
        );
      if (!resume.recovery && rollbacks > 0)
        throw this.#failure('the previous run ended well, but this server rolled back at start');
    }
    await this.#quietChecks(after);
  }

  /**
   * The server dies at its planted kill point, as the model said: SIGKILL, after naming the point on
   * stderr, with no server.idle first; the codons it started are the model's.
   */
  async #diesAt(point: PlantedPoint, expect: Expectation, cursor: number, attemptsAt: number): Promise<void> {
    const server = this.#requireServer();
    const deadline = Date.now() + this.#settleTimeoutMs;
    while (!server.exit) {
      // This server's own (a journal replayed to a new client may hold older ones).
      const idle = this.#log
        .slice(cursor)
        .find((e) => e.type === 'server.idle' && Date.parse(e.timestamp) >= server.spawnedAt);
      if (idle?.type === 'server.idle')
        throw this.#failure(
          `expected the server to die at its kill point ${point}, but it settled: server.idle ${idle.data.reason}`,
        );
      if (Date.now() > deadline)
        throw this.#failure(
          `expected the server to die at its kill point ${point}; it still runs after ${this.#settleTimeoutMs / 1000} s`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
    const exit = server.exit;
    liveGroups.delete(server.pid);
    // What else its process group holds goes, as with a kill by the harness (agents have their own).
    killGroup(server.pid);
    await this.#client?.close().catch(() => {});
    this.#client = undefined;
    // Rule (f) at the next start: everything received from it survives.
    this.#beforeDown = [...this.#ids];
    // The exit can be seen before the last of stderr is read from the pipe.
    const said = `ribosome: kill point ${point} reached`;
    const readBy = Date.now() + 5_000;
    while (!server.stderr().includes(said) && Date.now() < readBy)
      await new Promise((r) => setTimeout(r, 20));
    if (exit.signal !== 'SIGKILL' || !server.stderr().includes(said))
      throw this.#failure(
        `expected the server to die at its kill point ${point} (SIGKILL, "${said}" on stderr); it ended with ${exitText(exit)}`,
      );
    const attempts = this.provider.attempts
      .slice(attemptsAt)
      .map((a) => `${a.codonId}#${a.n}:${a.behaviour}`);
    const wanted = expect.starts.map((s) => `${s.codonId}#${s.attempt}:${s.behaviour}`);
    if (attempts.join(' ') !== wanted.join(' '))
      throw this.#failure(
        `codons started before the kill point: expected [${wanted.join(' ')}], the agents ran [${attempts.join(' ')}]`,
      );
    stats.plantedKills += 1;
    stats.plantedAt[point] = (stats.plantedAt[point] ?? 0) + 1;
    this.#note(`  → died at kill point ${point} (${exitText(exit)})`);
  }

  // --- settling -------------------------------------------------------------------------------------------

  /**
   * Waits until the server settles after `cursor`: the command's error, a server.idle, a codon whose
   * agent sits in its long sleep, or the server's exit. Checks rule (a) on /proc meanwhile.
   */
  async #settle(cursor: number, attemptsAt: number, commandId: string | undefined): Promise<Settled> {
    const server = this.#requireServer();
    const deadline = Date.now() + this.#settleTimeoutMs;
    for (;;) {
      const procs = processes();
      this.#checkOneAgent(procs);
      const error = commandId ? this.#commandErrors.get(commandId) : undefined;
      if (error) return { kind: 'error', code: error.data.code ?? '(no code)', message: error.data.message };
      if (server.exit) return { kind: 'exited', exit: server.exit };
      const idle = this.#log.slice(cursor).find((e) => e.type === 'server.idle');
      if (idle?.type === 'server.idle') return { kind: 'idle', event: idle };
      const running = this.#stuckRunning(procs, attemptsAt);
      if (running) return running;
      if (Date.now() > deadline) {
        throw this.#failure(
          `the server did not settle within ${this.#settleTimeoutMs / 1000} s (no server.idle, no codon waiting in its sleep)`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * A codon started (and not completed) whose new attempt is stuck in its sleep, which runs, and
   * whose Bash call the server has recorded (so the agent's output is all in: nothing is in flight).
   */
  #stuckRunning(procs: Proc[], attemptsAt: number): Settled | undefined {
    const at = this.#log.findLastIndex((e) => e.type === 'codon.started' || e.type === 'codon.completed');
    const last = this.#log[at];
    if (last?.type !== 'codon.started') return undefined;
    const attempt = this.provider.attempts.at(-1);
    if (!attempt || attempt.seq <= attemptsAt || attempt.behaviour !== 'stuck' || !attempt.marker)
      return undefined;
    if (attempt.codonId !== last.data.codonId) return undefined;
    const marker = attempt.marker;
    if (!procs.some((p) => hasMarker(p, marker))) return undefined;
    const recorded = this.#log
      .slice(at)
      .some(
        (e) =>
          e.type === 'assistant.action' &&
          e.data.toolName === 'Bash' &&
          e.data.content.includes(`sleep ${marker}`),
      );
    if (!recorded) return undefined;
    return { kind: 'running', codonId: attempt.codonId, attempt };
  }

  #compareSettled(settled: Settled, expect: Expectation, cursor: number, attemptsAt: number): void {
    const seen = settledText(settled);
    this.#note(`  → saw ${seen}`);
    if (settled.kind === 'exited') {
      throw this.#failure(`the server exited unexpectedly (${exitText(settled.exit)})`);
    }
    if (expect.error) {
      if (settled.kind !== 'error' || settled.code !== expect.error)
        throw this.#failure(`expected the command to be refused with ${expect.error}, saw ${seen}`);
      return;
    }
    if (settled.kind === 'error')
      throw this.#failure(`the command was refused: ${settled.code}: ${settled.message}`);
    if (settled.kind === 'idle') {
      const at = this.#log.findLastIndex((e) => e.type === 'codon.started' || e.type === 'codon.completed');
      const last = this.#log[at];
      if (last?.type === 'codon.started')
        throw this.#failure(
          at < cursor && expect.resume
            ? `codon ${last.data.codonId}, interrupted when the previous server died, got no codon.completed from this server`
            : `server.idle (${settled.event.data.reason}) while codon ${last.data.codonId} runs (codon.started, no codon.completed)`,
        );
    }
    // (e) which codons started, and with which attempt.
    const attempts = this.provider.attempts
      .slice(attemptsAt)
      .map((a) => `${a.codonId}#${a.n}:${a.behaviour}`);
    const wanted = expect.starts.map((s) => `${s.codonId}#${s.attempt}:${s.behaviour}`);
    if (attempts.join(' ') !== wanted.join(' ')) {
      const started = this.#log
        .slice(cursor)
        .flatMap((e) => (e.type === 'codon.started' ? [e.data.codonId] : []));
      throw this.#failure(
        `codons started: expected [${wanted.join(' ')}], saw codon.started [${started.join(' ')}], the agents ran [${attempts.join(' ')}]`,
      );
    }
    const want = expect.settle;
    if (want.kind === 'running') {
      if (settled.kind !== 'running' || settled.codonId !== want.codonId)
        throw this.#failure(`expected codon ${want.codonId} to be running, saw ${seen}`);
      return;
    }
    if (want.kind !== 'idle') return;
    if (settled.kind !== 'idle') throw this.#failure(`expected server.idle ${want.reason}, saw ${seen}`);
    const data = settled.event.data;
    const problems: string[] = [];
    if (data.reason !== want.reason && !this.#ignore.has('idle-reason'))
      problems.push(`reason ${data.reason}, expected ${want.reason}`);
    if (data.nextCodonId !== undefined) this.#idleFields.nextCodonId = true;
    if (data.lastEnded !== undefined) this.#idleFields.lastEnded = true;
    const fields = !this.#ignore.has('idle-fields');
    if (fields && this.#idleFields.nextCodonId && data.nextCodonId !== want.nextCodonId)
      problems.push(`nextCodonId ${data.nextCodonId ?? '(none)'}, expected ${want.nextCodonId ?? '(none)'}`);
    const lastText = (l: { codonId: string; status: string } | undefined) =>
      l ? `${l.codonId} ${l.status}` : '(none)';
    if (fields && this.#idleFields.lastEnded && lastText(data.lastEnded) !== lastText(want.lastEnded))
      problems.push(`lastEnded ${lastText(data.lastEnded)}, expected ${lastText(want.lastEnded)}`);
    if (problems.length > 0) throw this.#failure(`server.idle: ${problems.join('; ')}`);
  }

  // --- checks at a quiet point -------------------------------------------------------------------------

  async #quietChecks(m: ModelState): Promise<void> {
    const server = this.#requireServer();
    // (b) the server is up.
    if (server.exit) throw this.#failure(`the server exited (${exitText(server.exit)})`);
    const history = await this.#sync();
    this.#checkLifecycle(history, m);
    this.#checkIdles(history, m);
    this.#checkSnapshot(history);
    const list = await this.#checkpointList();
    this.#checkCheckpoints(list, m);
    this.#checkAttempts(m);
    if (this.provider.strays.length > 0)
      throw this.#failure(`the provider got requests it could not place: ${this.provider.strays.join('; ')}`);
    // (g) processes.
    if (m.running) {
      const procs = processes();
      this.#checkOneAgent(procs);
      const marker = this.#attemptOf(m.running)?.marker;
      const markers = this.#markerProcs(procs);
      if (this.#agentTrees(procs).length !== 1 || !markers.some((p) => p.marker === marker))
        throw this.#failure(
          `codon ${m.running.codonId} should be running in its sleep ${marker}, but it is not`,
        );
      const stray = markers.filter((p) => p.marker !== marker);
      if (stray.length > 0)
        throw this.#failure(
          `an agent outlived its codon: ${stray.map((p) => `${p.pid} ${p.line}`).join(', ')}`,
        );
    } else {
      await this.#expectNoAgents('while the server is idle');
      this.#checkFiles(list, m);
    }
    if (server.exit) throw this.#failure(`the server exited (${exitText(server.exit)})`);
  }

  /** (a) and (c): codon.started / codon.completed alternate, and match the model's sequence. */
  #checkLifecycle(history: ServerEvent[], m: ModelState): void {
    const { seen, open, problem } = codonLifecycle(history);
    if (problem) throw this.#failure(problem);
    const want = m.lifecycle.map((l) =>
      l.kind === 'started'
        ? `+${l.codonId}`
        : `-${l.codonId}${l.success === true ? '' : l.success === false ? '!' : '?'}`,
    );
    const same =
      seen.length === want.length &&
      seen.every((s, i) => {
        const w = want[i]!;
        return w.endsWith('?') ? s.replace(/!$/, '') === w.slice(0, -1) : s === w;
      });
    if (!same) {
      const at = seen.findIndex((s, i) => s !== want[i]);
      throw this.#failure(
        `codon.started/completed (+ started, - completed, ! failed, ? either):\n  journal: ${seen.join(' ')}\n  model:   ${want.join(' ')}${
          open && !m.running ? `\n  (${open} has no codon.completed)` : ''
        }${at >= 0 ? `\n  first difference at #${at}` : ''}`,
      );
    }
  }

  #checkIdles(history: ServerEvent[], m: ModelState): void {
    const idles = history.filter((e) => e.type === 'server.idle');
    if (idles.length !== m.idles + this.#idleAllowance && !this.#ignore.has('idle-count')) {
      throw this.#failure(
        `${idles.length} server.idle events in the journal, the model settled idle ${m.idles} times${
          this.#idleAllowance ? ` (and ${this.#idleAllowance} came during shutdowns)` : ''
        }:\n${idles
          .map((e) => `  ${e.type === 'server.idle' ? e.data.reason : ''} ${e.timestamp}`)
          .join('\n')}`,
      );
    }
  }

  /** (d) the latest state.snapshot agrees with the fold of the state.transition events before it. */
  #checkSnapshot(history: ServerEvent[]): void {
    const [problem] = snapshotProblems(history);
    if (problem) throw this.#failure(problem);
  }

  async #checkpointList() {
    const client = this.#requireClient();
    try {
      const answer = await client.request('checkpoint.list', {}, 'checkpoint.list', { timeoutMs: 15_000 });
      return answer.data.checkpoints;
    } catch (error) {
      throw this.#failure(`checkpoint.list failed: ${(error as Error).message}`);
    }
  }

  /** (d) checkpoint.list is the lineage: one ending checkpoint per ending, in order. */
  #checkCheckpoints(
    list: Array<{ codonId: string; checkpointType: string; status: string }>,
    m: ModelState,
  ): void {
    const seen = list.map((c) => `${c.codonId}:${c.checkpointType}/${c.status}`);
    const want = endings(m).map((e) => `${e.codonId}:${checkpointKind(e.status)}/${e.status}`);
    if (seen.join(' ') !== want.join(' '))
      throw this.#failure(
        `checkpoint.list is not the lineage:\n  server: ${seen.join(' ') || '(empty)'}\n  model:  ${want.join(' ') || '(empty)'}`,
      );
  }

  /** Every codon.started reached the provider once, in order; the queued behaviours agree. */
  #checkAttempts(m: ModelState): void {
    const starts = m.lifecycle.flatMap((l) => (l.kind === 'started' ? [l.codonId] : []));
    const attempts = this.provider.attempts.map((a) => a.codonId);
    if (starts.join(' ') !== attempts.join(' '))
      throw this.#failure(
        `agents that called the provider: [${attempts.join(' ')}], codons the model started: [${starts.join(' ')}]`,
      );
    for (const codonId of m.plan) {
      const queued = this.provider.pending(codonId).join(' ');
      if (queued !== (m.pending[codonId] ?? []).join(' '))
        throw this.#failure(
          `harness: the provider has [${queued}] queued for ${codonId}, the model [${m.pending[codonId]?.join(' ')}]`,
        );
    }
  }

  /** (d) the agent root is the model's files and the tree of the latest checkpoint. */
  #checkFiles(list: Array<{ sha: string }>, m: ModelState): void {
    const actual = readTree(this.agentRoot);
    const want = expectedFiles(m, fileContent);
    const fmt = filesText;
    if (fmt(actual) !== fmt(want))
      throw this.#failure(`agent root files: ${fmt(actual)}; the model expects ${fmt(want)}`);
    const latest = list.at(-1);
    if (latest) {
      const tree = gitTree(join(this.exec, '.ribosome/checkpoints.git'), latest.sha);
      if (fmt(tree) !== fmt(actual))
        throw this.#failure(
          `agent root files: ${fmt(actual)}; the latest checkpoint ${latest.sha.slice(0, 10)} has ${fmt(tree)}`,
        );
    }
  }

  async #expectNoAgents(when: string): Promise<void> {
    // The engine ends an agent's tree before it reports the codon; allow the kernel a moment to reap.
    const deadline = Date.now() + 1_000;
    for (;;) {
      const left = this.#leftovers();
      if (left.length === 0) return;
      if (Date.now() > deadline)
        throw this.#failure(
          `an agent outlived its codon (${when}):\n${left.map((p) => `  ${p.pid} ${p.line}`).join('\n')}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  #attemptOf(running: { codonId: string; attempt: number }): Attempt | undefined {
    return this.provider.attempts.find((a) => a.codonId === running.codonId && a.n === running.attempt);
  }

  #requireServer(): ServerProc {
    if (!this.#server) throw new Error('no server');
    return this.#server;
  }

  // --- reporting ------------------------------------------------------------------------------------------

  #failure(message: string): ModelFailure {
    return new ModelFailure(`${message}\n\n${this.report()}`);
  }

  /** The steps so far, the last events, and the server's own complaints. */
  report(model = this.#expected): string {
    const lines = ['steps:', ...this.trace.map((t) => `  ${t}`)];
    if (model) lines.push(`model after this step: ${describeState(model)}`);
    lines.push('last events:');
    for (const e of this.#log.slice(-25)) lines.push(`  ${eventText(e)}`);
    const stderr = this.#server?.stderr().trim();
    if (stderr)
      lines.push(
        'server stderr (tail):',
        ...stderr
          .split('\n')
          .slice(-15)
          .map((l) => `  ${l}`),
      );
    const logFile = join(this.exec, '.ribosome/logs/server.log');
    if (existsSync(logFile)) {
      const bad = readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((l) => /"level":(40|50|60)/.test(l))
        .slice(-8);
      if (bad.length > 0)
        lines.push('server.log warnings/errors (tail):', ...bad.map((l) => `  ${l.slice(0, 400)}`));
    }
    return lines.join('\n');
  }
}

// --- helpers ------------------------------------------------------------------------------------------------

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function expectText(expect: Expectation): string {
  if (expect.error) return `error ${expect.error}`;
  const starts = expect.starts.map((s) => `${s.codonId}(${s.behaviour})`).join(' ');
  const s = expect.settle;
  const settle =
    s.kind === 'idle'
      ? `idle ${s.reason} next=${s.nextCodonId ?? '-'}`
      : s.kind === 'running'
        ? `${s.codonId} running`
        : 'down';
  return `${starts ? `starts ${starts}, ` : ''}${settle}`;
}

function settledText(s: Settled): string {
  switch (s.kind) {
    case 'error':
      return `error ${s.code} (${s.message})`;
    case 'idle':
      return `server.idle ${s.event.data.reason} next=${s.event.data.nextCodonId ?? '-'} lastEnded=${
        s.event.data.lastEnded ? `${s.event.data.lastEnded.codonId}:${s.event.data.lastEnded.status}` : '-'
      }`;
    case 'running':
      return `${s.codonId} running (sleep ${s.attempt.marker})`;
    case 'exited':
      return `server exit (${exitText(s.exit)})`;
  }
}

function eventText(e: ServerEvent): string {
  const t = e.timestamp.slice(11, 23);
  switch (e.type) {
    case 'state.transition':
      return `${t} transition ${e.data.transitionType} ${e.data.codonId ?? ''}`;
    case 'codon.started':
      return `${t} codon.started ${e.data.codonId}`;
    case 'codon.completed':
      return `${t} codon.completed ${e.data.codonId} success=${e.data.success}`;
    case 'server.idle':
      return `${t} server.idle ${e.data.reason} ${e.data.message}`;
    case 'error':
      return `${t} error ${e.data.code ?? ''} ${e.data.message.slice(0, 160)}`;
    case 'rollback.completed':
      return `${t} rollback.completed ${e.data.codonId} ${e.data.checkpointType} ${e.data.fromRun} -> ${e.data.toRun}`;
    case 'rollback.started':
      return `${t} rollback.started to ${e.data.toCodon} ${e.data.checkpointType}`;
    default:
      return `${t} ${e.type}`;
  }
}
