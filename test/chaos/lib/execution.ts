/**
 * One execution directory under fault: a plan for the built-in agent, the model test's controllable
 * provider, the server's successive lives (killed, crashed, stopped, started again) and a client of
 * each that keeps every journaled event it received. The checks are the resume invariants of
 * test/engine/model/invariants.ts, without a model: they hold whatever the faults did.
 *
 * - no lost events: every journaled event a client received is in the journal after every restart;
 * - state = journal fold = git: the transitions the state store holds are exactly the journaled
 *   state.transition events; the latest state.snapshot agrees with their fold; every checkpoint of
 *   the fold is a commit of its run's branch; an idle agent root is its latest checkpoint's tree;
 * - no orphans: no agent or tool process of this execution outlives its codon or its server.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { isJournaled, type ServerEvent } from '../../../src/core/protocol/index.ts';
import { type EngineState, reduceAll } from '../../../src/execution/state/reducer.ts';
import { parseTransition, type Transition } from '../../../src/execution/state/transitions.ts';
import {
  agentProcs,
  agentTrees,
  codonLifecycle,
  filesText,
  gitTree,
  hasMarker,
  journaledTransitions,
  lostEvents,
  type Proc,
  processes,
  readTree,
  snapshotProblems,
} from '../../engine/model/invariants.ts';
import type { Behaviour } from '../../engine/model/model.ts';
import { type ModelProvider, startModelProvider } from '../../engine/model/provider.ts';
import { killUntilNone } from '../../helpers/processes.ts';
import { sandboxOnLine } from '../../helpers/sandbox-support.ts';
import type { Tally } from './scenario.ts';
import {
  bounded,
  downVerdict,
  exitText,
  indent,
  type Life,
  type StartOptions,
  startRibosome,
} from './server.ts';

export type ExecutionOptions = {
  codons: readonly string[];
  /** Attach a sentinel (an LLM monitor that calls the provider on every agent action) to each codon. */
  sentinels?: boolean;
  /** The execution directory (default: `exec` in a new temp dir), e.g. on a small tmpfs. */
  execDir?: string;
  /** Config file text (YAML), passed with --config. */
  config?: string;
};

export type StartArgs = StartOptions & { autostart?: boolean; extra?: string[] };

/** A sentinel on every codon: one provider call per agent action, so kills land among them too. */
const SENTINEL = `sentinels:
  watch:
    model: claude-haiku-4-5
    userPrompt: "The agent's latest {{eventCount}} events end with {{events.last.type}}. Anything wrong?"
    trigger: { type: event, eventTypes: [assistant.action, tool.result] }
    executionStrategy: { type: immediate }
    maxTokens: 50
`;

export class Execution {
  readonly dir: string;
  readonly exec: string;
  readonly agentRoot: string;
  readonly planFile: string;
  readonly configFile: string | undefined;
  readonly provider: ModelProvider;
  readonly #tally: Tally;
  life: Life | undefined;
  client: RibosomeClient | undefined;
  /** Ids of journaled events any client received, over every life (with their type, for reports). */
  readonly seen = new Map<string, string>();
  /** Every event the current life's client received (journaled or not), in arrival order. */
  received: ServerEvent[] = [];
  /** The journal as far as the current client knows it, in journal order. */
  #log: ServerEvent[] = [];
  #ids = new Set<string>();
  #lives = 0;
  /** The life whose stack trace was reported (once is enough). */
  #stderrChecked = 0;
  #disposed = false;

  private constructor(dir: string, exec: string, provider: ModelProvider, tally: Tally, config?: string) {
    this.dir = dir;
    this.exec = exec;
    this.agentRoot = join(exec, 'agentRoot');
    this.planFile = join(dir, 'plan.yaml');
    this.configFile = config === undefined ? undefined : join(dir, 'config.yaml');
    this.provider = provider;
    this.#tally = tally;
  }

  static async create(tally: Tally, options: ExecutionOptions): Promise<Execution> {
    const dir = mkdtempSync(join(tmpdir(), 'ribosome-chaos-'));
    const provider = await startModelProvider();
    const x = new Execution(dir, options.execDir ?? join(dir, 'exec'), provider, tally, options.config);
    writeFileSync(
      x.planFile,
      `name: chaos\nagent: builtin\n${sandboxOnLine()}${options.sentinels ? SENTINEL : ''}codons:\n${options.codons
        .map(
          (id) =>
            `  - id: ${id}\n    name: Codon ${id}\n    prompt: Do ${id}.\n${options.sentinels ? '    sentinels: [watch]\n' : ''}`,
        )
        .join('')}`,
    );
    if (x.configFile && options.config !== undefined) writeFileSync(x.configFile, options.config);
    return x;
  }

  get log(): readonly ServerEvent[] {
    return this.#log;
  }

  /** The last `n` events this life's client received, one line each (for reports). */
  recent(n = 12): string {
    return this.received
      .slice(-n)
      .map((e) => {
        const d = e.data as Record<string, unknown>;
        const what = d.message ?? d.transitionType ?? d.codonId ?? d.reason ?? '';
        return `${e.timestamp.slice(11, 23)} ${e.type} ${String(what).slice(0, 200)}`;
      })
      .join('\n');
  }

  /** The last lines of the server log (level, message), for reports. */
  logTail(n = 8): string {
    try {
      return readFileSync(join(this.exec, '.ribosome/logs/server.log'), 'utf8')
        .trim()
        .split('\n')
        .slice(-n)
        .map((line) => {
          try {
            const l = JSON.parse(line) as {
              level: number;
              msg: string;
              time: number;
              err?: { message?: string };
            };
            return `${new Date(l.time).toISOString().slice(11, 23)} ${l.level} ${l.msg}${l.err?.message ? `: ${l.err.message}` : ''}`;
          } catch {
            return line.slice(0, 300);
          }
        })
        .join('\n');
    } catch {
      return '(no server log)';
    }
  }

  get lives(): number {
    return this.#lives;
  }

  /** Queues how the next attempt of `codonId` behaves (attempts without one behave `ok`). */
  behave(codonId: string, behaviour: Behaviour): void {
    this.provider.setNext(codonId, behaviour);
  }

  // --- lives ----------------------------------------------------------------------------------------------

  /**
   * Starts a life, connects a client, and checks that no event a client received before is lost.
   * Returns false when the server did not come up (the failure is recorded).
   */
  async start(args: StartArgs = {}): Promise<boolean> {
    const cli = ['run', this.planFile, '--headless', '--execution', this.exec];
    cli.push('--provider-base-url', this.provider.url);
    if (this.configFile) cli.push('--config', this.configFile);
    if (args.autostart === false) cli.push('--no-autostart');
    cli.push(...(args.extra ?? []));
    this.#lives += 1;
    // What the previous lives' clients received (this life's client adds events live meanwhile).
    const before = new Map(this.seen);
    try {
      this.life = await startRibosome(cli, args);
    } catch (error) {
      this.#tally.fail(`life ${this.#lives}: ${(error as Error).message}`);
      this.life = undefined;
      return false;
    }
    try {
      await this.connect();
    } catch (error) {
      this.#tally.fail(`life ${this.#lives}: could not connect: ${(error as Error).message}`);
      return false;
    }
    const history = await this.sync();
    if (history) this.#checkLost(history, `after start ${this.#lives}`, before);
    return history !== undefined;
  }

  /** Connects a readandwrite client to the current life (replacing any previous one). */
  async connect(): Promise<RibosomeClient> {
    const life = this.#requireLife();
    await this.client?.close().catch(() => {});
    this.received = [];
    const client = await RibosomeClient.connect(life.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
      keepEvents: 0,
      connectTimeoutMs: 15_000,
    });
    client.onEvent((e) => this.#onEvent(e));
    this.client = client;
    return client;
  }

  #onEvent(e: ServerEvent): void {
    this.received.push(e);
    // Replies to one client are not journaled; a fatal error may be sent when the journal cannot be written.
    if (e.type === 'error' && (e.data.commandId || e.data.fatal || e.data.severity === 'fatal')) return;
    if (!isJournaled(e.type)) return;
    this.seen.set(e.id, `${e.type} ${e.timestamp}`);
    if (!this.#ids.has(e.id)) {
      this.#ids.add(e.id);
      this.#log.push(e);
    }
  }

  /** history.sync: the known journal becomes its answer plus what arrived live since. */
  async sync(timeoutMs = 30_000): Promise<ServerEvent[] | undefined> {
    const client = this.client;
    if (!client) return undefined;
    const from = this.received.length;
    let history: ServerEvent[];
    try {
      history = await client.syncHistory(timeoutMs);
    } catch (error) {
      this.#tally.fail(`life ${this.#lives}: history.sync did not complete: ${(error as Error).message}`);
      return undefined;
    }
    if (client.invalidFrames.length > 0)
      this.#tally.fail(`events that fail their schema: ${client.invalidFrames.slice(0, 3).join('\n')}`);
    const ids = new Set(history.map((e) => e.id));
    const tail = this.received.slice(from).filter((e) => isJournaled(e.type) && !ids.has(e.id));
    this.#log = [...history, ...tail.filter((e) => !(e.type === 'error' && e.data.commandId))];
    this.#ids = new Set(this.#log.map((e) => e.id));
    return history;
  }

  #checkLost(history: readonly ServerEvent[], when: string, seen = this.seen): void {
    const lost = lostEvents(seen.keys(), history);
    this.#tally.eventsChecked += seen.size;
    this.#tally.eventsLost += lost.length;
    if (lost.length > 0)
      this.#tally.fail(
        `${when}: ${lost.length} journaled event(s) a client received are not in the journal: ${lost
          .slice(0, 5)
          .map((id) => `${seen.get(id)} (${id})`)
          .join(', ')}`,
      );
  }

  /** SIGKILLs the server's process group (its agents, in groups of their own, are left running). */
  async kill(): Promise<void> {
    const life = this.#requireLife();
    this.#tally.rss(life.memory()?.hwmKiB);
    this.#tally.kills += 1;
    life.kill('SIGKILL');
    const exit = await bounded(life.exited, 10_000);
    if (!exit) this.#tally.fail(`life ${this.#lives}: the server did not die within 10 s of SIGKILL`);
    this.checkStderr();
    await this.client?.close().catch(() => {});
    this.client = undefined;
  }

  /**
   * Waits up to `ms` for a life started with RIBOSOME_KILL_AT to die at its planted kill point.
   * Returns whether it did; a death that is not the planted kill is a failure.
   */
  async diesAtKillPoint(point: string, ms: number): Promise<boolean> {
    const life = this.#requireLife();
    const exit = await bounded(life.exited, ms);
    if (!exit) return false;
    this.#tally.kills += 1;
    if (exit.signal !== 'SIGKILL' || !life.stderr().includes(`kill point ${point.split('#')[0]} reached`))
      this.#tally.fail(`life ${this.#lives}: died (${exitText(exit)}) but not at kill point ${point}`);
    this.checkStderr();
    await this.client?.close().catch(() => {});
    this.client = undefined;
    return true;
  }

  /** Asks the server to shut down and expects exit 0 and no process of the execution left. */
  async shutdown(): Promise<boolean> {
    const life = this.#requireLife();
    this.#tally.rss(life.memory()?.hwmKiB);
    try {
      this.client?.send('server.shutdown', { reason: 'chaos: end of scenario' });
    } catch {
      life.kill('SIGTERM');
    }
    const exit = await bounded(life.exited, 30_000);
    await this.client?.close().catch(() => {});
    this.client = undefined;
    this.checkStderr();
    if (!exit) {
      this.#tally.fail(
        `life ${this.#lives}: the server did not exit within 30 s of server.shutdown; its log ends:\n${indent(this.logTail())}`,
      );
      life.kill();
      return false;
    }
    if (exit.code !== 0) {
      this.#tally.fail(`life ${this.#lives}: server.shutdown: ${exitText(exit)}`);
      return false;
    }
    await this.expectNoLeftovers('after server.shutdown');
    return true;
  }

  /**
   * After a fault: a server that went down by itself must have said so (fatal event, documented
   * code, no stack trace). Returns how it ended, for the tally's outcomes.
   */
  async verdictIfDown(graceMs: number): Promise<'alive' | 'exited'> {
    const life = this.#requireLife();
    const exit = await bounded(life.exited, graceMs);
    if (!exit) return 'alive';
    const problems = downVerdict(exit, this.received, life.stderr());
    if (problems.length > 0) {
      this.#tally.crashes += 1;
      this.#tally.fail(`life ${this.#lives} went down (${exitText(exit)}):\n${indent(problems.join('\n'))}`);
    }
    await this.client?.close().catch(() => {});
    this.client = undefined;
    return 'exited';
  }

  /** No stack trace on the current life's stderr (recorded as a failure). */
  checkStderr(): void {
    const life = this.life;
    if (!life || this.#stderrChecked === this.#lives) return;
    const stack = downVerdict({ code: 1, signal: null }, [], life.stderr()).find((p) =>
      p.startsWith('stack trace'),
    );
    if (stack) {
      this.#stderrChecked = this.#lives;
      this.#tally.fail(`life ${this.#lives}: ${stack}`);
    }
  }

  // --- settling and checks -----------------------------------------------------------------------------

  /** Latest attempt's sleep marker when it is the running codon's and its sleep runs. */
  #stuckMarker(codonId: string, procs: Proc[]): number | undefined {
    const attempt = this.provider.attempts.findLast((a) => a.codonId === codonId);
    const marker = attempt?.behaviour === 'stuck' ? attempt.marker : undefined;
    return marker !== undefined && procs.some((p) => hasMarker(p, marker)) ? marker : undefined;
  }

  /**
   * Waits until the server is idle: no codon open and a server.idle as the latest lifecycle event.
   * A codon stuck in its long command is force-stopped. False (recorded) if it does not settle.
   */
  async settle(timeoutMs = 60_000): Promise<boolean> {
    const life = this.#requireLife();
    const deadline = Date.now() + timeoutMs;
    let stopped: { codonId: string; at: number } | undefined;
    for (;;) {
      if (life.exit) return false;
      const procs = processes();
      if (agentTrees(this.agentRoot, procs).length > 1)
        this.#tally.fail(
          `two agents at once:\n${indent(
            agentTrees(this.agentRoot, procs)
              .map((p) => `${p.pid} ${p.line}`)
              .join('\n'),
          )}`,
        );
      const { open } = codonLifecycle(this.#log);
      const last = this.#log.findLast((e) =>
        [
          'server.idle',
          'codon.started',
          'codon.completed',
          'rollback.started',
          'rollback.completed',
        ].includes(e.type),
      );
      if (!open && last?.type === 'server.idle') return true;
      // Again every few seconds: a stop the server could not carry out (a fault) may work later.
      if (
        open &&
        (stopped?.codonId !== open || Date.now() - stopped.at > 5_000) &&
        this.#stuckMarker(open, procs) !== undefined
      ) {
        stopped = { codonId: open, at: Date.now() };
        try {
          this.client?.send('codon.forceStop', { reason: 'chaos: settling' });
        } catch {}
      }
      if (Date.now() > deadline) {
        this.#tally.fail(
          `life ${this.#lives}: the server did not settle within ${timeoutMs / 1000} s (open codon: ${open ?? '-'}${
            open && agentTrees(this.agentRoot).length === 0 ? ', whose agent is gone' : ''
          }; last: ${last?.type ?? '-'}; lifecycle: ${codonLifecycle(this.#log).seen.slice(-8).join(' ')}; last events:\n${indent(this.recent(6))})`,
        );
        return false;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The invariants at a quiet point (the server idle): recorded as failures, returns their count. */
  async quietChecks(when: string): Promise<number> {
    const before = this.#tally.failures.length;
    const fail = (m: string) => this.#tally.fail(`${when}: ${m}`);
    const history = await this.sync();
    if (!history) return 1;
    const { open, problem, seen } = codonLifecycle(history);
    if (problem) fail(`${problem} (lifecycle so far: ${seen.slice(-8).join(' ')})`);
    if (open) fail(`codon ${open} has a codon.started and no codon.completed while the server is idle`);
    for (const p of snapshotProblems(history)) fail(p);
    let list: Array<{ sha: string; codonId: string }> = [];
    try {
      const answer = await this.client?.request('checkpoint.list', {}, 'checkpoint.list', {
        timeoutMs: 15_000,
      });
      list = answer?.data.checkpoints ?? [];
    } catch (error) {
      fail(`checkpoint.list failed: ${(error as Error).message}`);
    }
    const gitDir = join(this.exec, '.ribosome/checkpoints.git');
    for (const c of list) {
      if (!gitHas(gitDir, c.sha)) fail(`checkpoint ${c.sha.slice(0, 10)} (${c.codonId}) is not in git`);
    }
    const latest = list.at(-1);
    if (latest && gitHas(gitDir, latest.sha)) {
      const files = filesText(readTree(this.agentRoot));
      const tree = filesText(gitTree(gitDir, latest.sha));
      if (files !== tree)
        fail(`agent root files: ${files}; the latest checkpoint ${latest.sha.slice(0, 10)} has ${tree}`);
    }
    await this.expectNoLeftovers(when);
    if (this.life?.exit) fail(`the server exited (${exitText(this.life.exit)})`);
    return this.#tally.failures.length - before;
  }

  /**
   * With the server down: the state store's transitions are exactly the journaled state.transition
   * events; the fold's checkpoints are commits of their runs' branches; no client event is lost.
   */
  storeChecks(when: string): void {
    const fail = (m: string) => this.#tally.fail(`${when}: ${m}`);
    const file = join(this.exec, '.ribosome/ribosome.db');
    if (!existsSync(file)) {
      fail('no database');
      return;
    }
    let stored: Transition[];
    let journal: ServerEvent[];
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      stored = (
        db.prepare('SELECT type, data FROM transitions ORDER BY seq').all() as Array<{
          type: string;
          data: string;
        }>
      ).map((r) => parseTransition(r.type, JSON.parse(r.data)));
      journal = (db.prepare('SELECT json FROM events ORDER BY seq').all() as Array<{ json: string }>).map(
        (r) => JSON.parse(r.json) as ServerEvent,
      );
    } finally {
      db.close();
    }
    this.#checkLost(journal, when);
    const journaled = journaledTransitions(journal);
    const text = (t: Transition) => `${t.type} ${canonical(t.data)}`;
    const differs = stored.findIndex((t, i) => !journaled[i] || text(t) !== text(journaled[i]));
    if (differs >= 0 || journaled.length !== stored.length) {
      const at = differs >= 0 ? differs : Math.min(stored.length, journaled.length);
      fail(
        `state ≠ journal fold: the state store holds ${stored.length} transitions, the journal ${journaled.length} state.transition events; first difference at #${at}: store ${around(stored, at)}, journal ${around(journaled, at)}`,
      );
    }
    let state: EngineState;
    try {
      state = reduceAll(stored);
    } catch (error) {
      fail(`the stored transitions do not fold: ${(error as Error).message}`);
      return;
    }
    const gitDir = join(this.exec, '.ribosome/checkpoints.git');
    for (const run of Object.values(state.runs)) {
      for (const c of run.checkpoints) {
        if (!gitHas(gitDir, c.sha))
          fail(`checkpoint ${c.sha.slice(0, 10)} of run ${run.runId} is not in git`);
        else if (run.branch && !gitAncestor(gitDir, c.sha, run.branch))
          fail(`checkpoint ${c.sha.slice(0, 10)} is not on its run's branch ${run.branch}`);
      }
    }
    const tmp = readdirSync(join(this.exec, '.ribosome')).filter((f) => /^runtime\.lock/.test(f));
    if (tmp.length > 0) fail(`left after the server stopped: ${tmp.join(', ')}`);
  }

  /** Agent and tool processes of this execution (a kill leaves them; the next server ends them). */
  leftovers(): Proc[] {
    const procs = processes();
    const markers = this.provider.attempts.flatMap((a) => (a.marker ? [a.marker] : []));
    return [
      ...agentProcs(this.agentRoot, procs),
      ...procs.filter((p) => markers.some((m) => hasMarker(p, m))),
    ].filter((p) => p.pid !== process.pid);
  }

  /** No orphans: the engine ends an agent's tree before it reports; allow the kernel a moment to reap. */
  async expectNoLeftovers(when: string): Promise<void> {
    const deadline = Date.now() + 2_000;
    for (;;) {
      const left = this.leftovers();
      if (left.length === 0) return;
      if (Date.now() > deadline) {
        this.#tally.fail(
          `${when}: orphans of this execution:\n${indent(left.map((p) => `${p.pid} ${p.line}`).join('\n'))}`,
        );
        for (const p of left) {
          try {
            process.kill(p.pid, 'SIGKILL');
          } catch {}
        }
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  #requireLife(): Life {
    if (!this.life) throw new Error('no server');
    return this.life;
  }

  /** Ends the server, whatever the execution left, the provider and the directory. */
  async dispose(options: { keepDir?: boolean } = {}): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.client?.close().catch(() => {});
    if (this.life && !this.life.exit) {
      this.life.kill();
      await bounded(this.life.exited, 10_000);
    }
    await killUntilNone(() => this.leftovers());
    await this.provider.stop();
    if (!options.keepDir) rmSync(this.dir, { recursive: true, force: true });
  }
}

function gitHas(gitDir: string, sha: string): boolean {
  try {
    execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', `${sha}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function gitAncestor(gitDir: string, sha: string, branch: string): boolean {
  try {
    execFileSync('git', ['--git-dir', gitDir, 'merge-base', '--is-ancestor', sha, `refs/heads/${branch}`], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

/** The transitions around index `at`, by type (the one at `at` in brackets). */
function around(ts: readonly Transition[], at: number): string {
  const near = ts
    .slice(Math.max(0, at - 2), at + 2)
    .map((t, i) => (i + Math.max(0, at - 2) === at ? `[${t.type}]` : t.type));
  return near.join(' ') || '(none)';
}

/** JSON with sorted keys, to compare values whatever order their keys were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

/** A directory for a scenario's own files, removed with `defer`. */
export function scratchDir(defer: (fn: () => unknown) => void, prefix = 'ribosome-chaos-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
