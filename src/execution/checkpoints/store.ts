import { z } from 'zod';
import { commitCheckpoint, commitOf } from './commits.ts';
import { type DiffOptions, diffBetween, diffStatBetween } from './compare.ts';
import { type CheckpointErrorCode, fail, fileFailureWords, ok, type StoreResult } from './errors.ts';
import { type GitRun, gitFailure } from './git-runner.ts';
import { leftOutAmong } from './ignored.ts';
import { type OpenedRepo, openRepo } from './open-repo.ts';
import {
  type CheckpointLogger,
  type CheckpointStoreOptions,
  type ResolvedOptions,
  resolveOptions,
} from './options.ts';
import type { ParsedDiff } from './parse-diff.ts';
import {
  FULL_SHA,
  type RunBranch,
  readAll,
  readCheckpoint,
  readCurrentBranch,
  readLineage,
  readRuns,
  tipOf,
} from './reads.ts';
import type { Recheck } from './recheck.ts';
import { writeHead } from './ref-file.ts';
import { type CodonCheckpointRequest, resolveCodonCheckpoint } from './resolve-codon.ts';
import { compareWithIndex, restoreWorkTree } from './restore-tree.ts';
import { runBranchName } from './run-branch.ts';
import {
  type CheckpointMeta,
  type CheckpointRecord,
  CreateCheckpointInput,
  type CreatedCheckpoint,
  type DiffStat,
  type RestoreResult,
} from './schema.ts';
import { SerialQueue } from './serial-queue.ts';
import { setAsideAfter } from './set-aside.ts';
import { type Staged, stageWorkTree } from './stage.ts';
import { verifyCheckpointObjects } from './verify-objects.ts';

/**
 * Checkpoints of an agent root in a shadow git repository: one branch per run, one commit per
 * checkpoint. Every method but ignoredPaths is queued behind the previous one (one git operation at a
 * time) and returns an error value rather than throwing.
 */
export class CheckpointStore {
  readonly gitDir: string;
  readonly workTree: string;
  readonly maxFileBytes: number;
  readonly gitVersion: string;
  readonly #git: GitRun;
  readonly #queue = new SerialQueue();
  readonly #now: () => Date;
  readonly #log: CheckpointLogger | undefined;
  readonly #include: readonly Buffer[];
  readonly #packs: boolean;
  readonly #durable: boolean;
  /** Files the last checkpoint recorded in the second it ended: hashed again at the next one. */
  #recheck: Recheck[] = [];
  /**
   * The tree the index holds, as the last checkpoint wrote it: the store is the index's only writer
   * (the engine's runtime lock). Forgotten on a failure and on a restore: then git writes it again.
   */
  #indexTree: string | undefined;

  private constructor(options: ResolvedOptions, repo: OpenedRepo) {
    this.gitDir = repo.gitDir;
    this.workTree = repo.workTree;
    this.gitVersion = repo.gitVersion;
    this.maxFileBytes = options.maxFileBytes;
    this.#git = repo.git;
    this.#now = options.now;
    this.#log = options.logger;
    this.#include = options.include;
    this.#packs = repo.packs;
    this.#durable = options.durable;
  }

  /**
   * Opens the store, creating it on first use. Throws a TypeError for contradictory options; a missing
   * git or an unwritable directory is an error value (GIT_UNAVAILABLE, STORE_UNAVAILABLE).
   */
  static async open(options: CheckpointStoreOptions): Promise<StoreResult<CheckpointStore>> {
    const resolved = resolveOptions(options);
    const repo = await openRepo(resolved);
    return repo.ok ? ok(new CheckpointStore(resolved, repo.value)) : repo;
  }

  /**
   * Starts run `runId` on a new branch and takes its initial checkpoint (InitialCheckpointSet): the agent
   * root as it is now, before any codon. The branch grows from `fromSha` (a checkpoint, e.g. the one
   * just restored) or, without it, from the current branch's tip. The work tree is not changed: restore
   * first to continue from an older checkpoint.
   */
  startRun(runId: string, options: { fromSha?: string } = {}): Promise<StoreResult<CreatedCheckpoint>> {
    return this.#queued(
      'startRun',
      async () => {
        const branch = runBranchName(runId);
        if (!branch.ok) return branch;
        const ref = `refs/heads/${branch.value}`;
        const existing = await tipOf(this.gitDir, ref);
        if (!existing.ok) return existing;
        if (existing.value) {
          return fail(
            'RUN_EXISTS',
            `Run ${runId} already has checkpoints (${branch.value}); start a run with a new id.`,
          );
        }
        let parent: string | null = null;
        if (options.fromSha !== undefined) {
          const from = await readCheckpoint(this.#git, options.fromSha);
          if (!from.ok) return from;
          parent = from.value.sha;
        } else {
          const head = await commitOf(this.#git, 'HEAD');
          if (!head.ok) return head;
          parent = head.value;
        }
        const meta = this.#meta({
          runId,
          codonId: '',
          codonName: '',
          checkpointType: 'rig-setup',
          status: 'pending',
        });
        const staged = await this.#stage();
        if (!staged.ok) return staged;
        const created = await this.#commit({ ...meta, initial: true }, ref, parent, false, staged.value);
        if (!created.ok) return created;
        try {
          await writeHead(this.gitDir, `ref: ${ref}`);
        } catch (error) {
          return fail(
            'CHECKPOINT_FAILED',
            `Could not make ${branch.value} the current branch: ${fileFailureWords(error)}`,
          );
        }
        return created;
      },
      'CHECKPOINT_FAILED',
    );
  }

  /** Commits the whole agent root as a checkpoint of run `input.runId` (whose branch startRun made). */
  create(input: CreateCheckpointInput): Promise<StoreResult<CreatedCheckpoint>> {
    return this.#queued(
      'create',
      async () => {
        const parsed = CreateCheckpointInput.safeParse(input);
        if (!parsed.success)
          return fail('INVALID_INPUT', `Invalid checkpoint: ${z.prettifyError(parsed.error)}`);
        const branch = runBranchName(parsed.data.runId);
        if (!branch.ok) return branch;
        const ref = `refs/heads/${branch.value}`;
        // The tip is read while the tree is scanned: the scan is the long part, and they do not
        // interact. The branch's move checks it again (compare-and-swap).
        const [tip, staged] = await Promise.all([tipOf(this.gitDir, ref), this.#stage()]);
        if (!tip.ok) return tip;
        if (!tip.value)
          return fail('RUN_NOT_FOUND', `Run ${parsed.data.runId} has not been started (startRun).`);
        if (!staged.ok) return staged;
        return this.#commit(
          { ...this.#meta(parsed.data), initial: false },
          ref,
          tip.value,
          true,
          staged.value,
        );
      },
      'CHECKPOINT_FAILED',
    );
  }

  /**
   * The checkpoints behind run `runId`'s branch, oldest first. `lineage` (the default) includes those
   * of the runs it grew from, which rollback.toCodon may need; `run` keeps the run's own.
   */
  list(runId: string, options: { scope?: 'lineage' | 'run' } = {}): Promise<StoreResult<CheckpointRecord[]>> {
    return this.#queued('list', async () => {
      const lineage = await readLineage(this.#git, runId);
      if (!lineage.ok || options.scope !== 'run') return lineage;
      return ok(lineage.value.filter((c) => c.runId === runId));
    });
  }

  /**
   * Sets aside the commits at the end of run `runId`'s branch after `keepSha`: checkpoints the engine's
   * state never recorded (a kill came between a commit and its record). The branch moves back to
   * `keepSha`; its old tip stays reachable on `refs/orphans/<branch>/<tip>`, for forensics. Returns that
   * ref, or null when the branch already ends at `keepSha` (or does not exist).
   */
  setAside(runId: string, keepSha: string): Promise<StoreResult<string | null>> {
    return this.#queued(
      'setAside',
      () => setAsideAfter(this.gitDir, runId, keepSha, this.#durable),
      'CHECKPOINT_FAILED',
    );
  }

  /** Every checkpoint of every run, each once, oldest first. */
  listAll(): Promise<StoreResult<CheckpointRecord[]>> {
    return this.#queued('listAll', () => readAll(this.#git));
  }

  /** The run branches, with their tips. */
  runs(): Promise<StoreResult<RunBranch[]>> {
    return this.#queued('runs', () => readRuns(this.#git));
  }

  /** The branch of the run started last (`run/<id>`), or null before the first run. */
  currentBranch(): Promise<StoreResult<string | null>> {
    return this.#queued('currentBranch', () => readCurrentBranch(this.#git));
  }

  /** The checkpoint taken when run `runId` started. */
  initialCheckpoint(runId: string): Promise<StoreResult<CheckpointRecord>> {
    return this.#queued('initialCheckpoint', async () => {
      const lineage = await readLineage(this.#git, runId);
      if (!lineage.ok) return lineage;
      const initial = lineage.value.find((c) => c.initial && c.runId === runId);
      return initial ? ok(initial) : fail('CHECKPOINT_NOT_FOUND', `Run ${runId} has no initial checkpoint.`);
    });
  }

  /** The checkpoint a full or abbreviated SHA (at least 4 hex digits) names, in any run. */
  resolve(shaOrPrefix: string): Promise<StoreResult<CheckpointRecord>> {
    return this.#queued('resolve', () => readCheckpoint(this.#git, shaOrPrefix));
  }

  /** The checkpoint rollback.toCodon means: a type, or `start` / `end` (see resolve-codon.ts). */
  resolveCodon(
    runId: string,
    codonId: string,
    request: CodonCheckpointRequest,
  ): Promise<StoreResult<CheckpointRecord>> {
    return this.#queued('resolveCodon', async () => {
      const lineage = await readLineage(this.#git, runId);
      return lineage.ok ? resolveCodonCheckpoint(lineage.value, codonId, request) : lineage;
    });
  }

  /**
   * Makes the agent root exactly the checkpoint: its files restored, files it does not have deleted.
   * Left alone: ignored files, files over the size cap (unless the checkpoint has that path), and every
   * `.git`. Branches do not move: continue with startRun(newRunId, { fromSha }). The objects it
   * would write are hashed again first: a damaged one is CHECKPOINT_CORRUPT, and nothing is written.
   */
  restore(shaOrPrefix: string): Promise<StoreResult<RestoreResult>> {
    return this.#queued(
      'restore',
      async () => {
        const wanted = shaOrPrefix.trim().toLowerCase();
        // Given a full SHA, comparing it with the index need not wait for the lookup.
        const [target, early] = await Promise.all([
          readCheckpoint(this.#git, wanted),
          FULL_SHA.test(wanted) ? compareWithIndex(this.#git, wanted) : null,
        ]);
        if (!target.ok) return target;
        // What the restore will read from the store is checked before anything is written.
        const [changes, verified] = await Promise.all([
          early ?? compareWithIndex(this.#git, target.value.sha),
          verifyCheckpointObjects(this.#git, target.value.sha),
        ]);
        if (!verified.ok) return verified;
        if (!changes.ok) return changes;
        // The index is the checkpoint's now: what was to be looked at again may not be in it.
        this.#recheck = [];
        this.#indexTree = undefined;
        const restored = await restoreWorkTree(this.#git, {
          workTree: this.workTree,
          gitDir: this.gitDir,
          maxFileBytes: this.maxFileBytes,
          sha: target.value.sha,
          changes: changes.value,
        });
        return restored.ok ? ok({ checkpoint: target.value, ...restored.value }) : restored;
      },
      'RESTORE_FAILED',
    );
  }

  /**
   * Which of `paths` (relative to the agent root, `/`-separated) checkpoints leave out as ignored: a
   * .gitignore or the `excludes` match them, they are not `include`d and no checkpoint in the index
   * took them already. One git process for all of them. Not queued: it only reads the index (git
   * replaces it whole), and a file change reported late because a big checkpoint ran is worse than
   * an answer from the index just before that checkpoint.
   */
  async ignoredPaths(paths: readonly string[]): Promise<StoreResult<Set<string>>> {
    try {
      return ok(await leftOutAmong(this.#git, paths, this.#include));
    } catch (error) {
      return fail('STORE_FAILED', (error as Error).message);
    }
  }

  /** Lines added and deleted per file between two checkpoints. */
  diffStat(fromSha: string, toSha: string): Promise<StoreResult<DiffStat>> {
    return this.#queued('diffStat', () => diffStatBetween(this.#git, fromSha, toSha));
  }

  /** The changes between two checkpoints as files and hunks, bounded (see compare.ts). */
  diff(
    fromSha: string,
    toSha: string,
    options: DiffOptions,
  ): Promise<StoreResult<ParsedDiff & { from: string; to: string }>> {
    return this.#queued('diff', () => diffBetween(this.#git, fromSha, toSha, options));
  }

  /** Packs loose objects (gc.auto is off so no checkpoint ever pays for it): call when idle. */
  compact(): Promise<StoreResult<void>> {
    return this.#queued('compact', async () => {
      const out = await this.#git(['gc', '--quiet']);
      return out.code === 0 ? ok(undefined) : gitFailure('compact the store (git gc)', out, 'STORE_FAILED');
    });
  }

  /** Resolves when every operation queued so far has finished. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  async #stage(): Promise<StoreResult<Staged>> {
    const staged = await stageWorkTree(this.#git, {
      workTree: this.workTree,
      maxFileBytes: this.maxFileBytes,
      include: this.#include,
      recheck: this.#recheck,
      packs: this.#packs,
      indexTree: this.#indexTree,
    });
    this.#indexTree = staged.ok ? staged.value.tree : undefined;
    if (staged.ok) this.#recheck = staged.value.recheck;
    return staged;
  }

  async #commit(
    meta: CheckpointMeta,
    ref: string,
    parent: string | null,
    refExists: boolean,
    staged: Staged,
  ): Promise<StoreResult<CreatedCheckpoint>> {
    const sha = await commitCheckpoint({
      gitDir: this.gitDir,
      durable: this.#durable,
      tree: staged.tree,
      parent,
      meta,
      ref,
      refExists,
    });
    if (!sha.ok) return sha;
    if (staged.skippedLargeFiles.length > 0) {
      this.#log?.warn(
        { sha: sha.value, files: staged.skippedLargeFiles },
        'files over the size cap left out of a checkpoint',
      );
    }
    return ok({
      ...meta,
      sha: sha.value,
      parentSha: parent,
      skippedLargeFiles: staged.skippedLargeFiles,
      warnings: staged.warnings,
    });
  }

  #meta(fields: Omit<CheckpointMeta, 'timestamp' | 'initial'>): Omit<CheckpointMeta, 'initial'> {
    return { ...fields, timestamp: this.#now().toISOString() };
  }

  #queued<T>(
    operation: string,
    task: () => Promise<StoreResult<T>>,
    failure: CheckpointErrorCode = 'STORE_FAILED',
  ): Promise<StoreResult<T>> {
    return this.#queue.run(async () => {
      const started = performance.now();
      const result = await task().catch(
        (error: unknown): StoreResult<T> =>
          fail(failure, `Unexpected failure in ${operation}: ${String(error)}`),
      );
      const durationMs = Math.round(performance.now() - started);
      if (result.ok) this.#log?.debug({ operation, durationMs }, 'checkpoint store');
      else this.#log?.debug({ operation, durationMs, error: result.error }, 'checkpoint store failed');
      return result;
    });
  }
}
