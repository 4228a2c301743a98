import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, realpath, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fail, ok, type StoreResult } from './errors.ts';
import { gitEnv } from './git-env.ts';
import { type GitRun, gitFailure, gitRunner } from './git-runner.ts';
import type { ResolvedOptions } from './options.ts';
import { INFO_ATTRIBUTES, infoExclude } from './repo-files.ts';

/** GIT_CONFIG_COUNT (2.31) carries all our settings. */
const MIN_GIT: readonly [number, number] = [2, 31];

export type OpenedRepo = {
  git: GitRun;
  gitDir: string;
  workTree: string;
  gitVersion: string;
  /** update-index writes a pack per call (a bulk check-in transaction) since git 2.37. */
  packs: boolean;
};

/** From this version each update-index call is one bulk check-in (one pack, however many files). */
const PACKS_GIT: readonly [number, number] = [2, 37];

/**
 * Checks git, creates the shadow repository if needed (bare: no work tree is recorded in it; every
 * command names one) and rewrites its info files. Idempotent: reopening an existing store is safe.
 */
export async function openRepo(options: ResolvedOptions): Promise<StoreResult<OpenedRepo>> {
  let workTree: string;
  let gitDir: string;
  try {
    if (!(await stat(options.workTree)).isDirectory()) throw new Error('not a directory');
    workTree = await realpath(options.workTree);
    await mkdir(dirname(options.gitDir), { recursive: true });
    gitDir = join(await realpath(dirname(options.gitDir)), basename(options.gitDir));
  } catch (error) {
    return fail(
      'STORE_UNAVAILABLE',
      `Cannot use agent root ${options.workTree} with store ${options.gitDir}: ${(error as Error).message}`,
    );
  }

  const base = {
    gitDir,
    workTree,
    path: process.env.PATH,
    tmpdir: process.env.TMPDIR,
  };
  const probe = gitRunner({
    env: gitEnv(base),
    cwd: workTree,
    timeoutMs: options.gitTimeoutMs,
    gitBinary: options.gitBinary,
  });
  const versionOut = await probe(['--version']);
  const version = /(\d+)\.(\d+)/.exec(versionOut.stdout.toString('utf8'));
  if (versionOut.code !== 0 || !version) {
    return fail(
      'GIT_UNAVAILABLE',
      `git (${options.gitBinary}) cannot be run: ${versionOut.spawnError ?? versionOut.stderr}. Install git 2.31 or newer.`,
    );
  }
  const found: [number, number] = [Number(version[1]), Number(version[2])];
  if (!atLeast(found, MIN_GIT)) {
    return fail(
      'GIT_UNAVAILABLE',
      `Checkpoints need git ${MIN_GIT.join('.')} or newer; found ${found.join('.')}.`,
    );
  }

  const env = gitEnv({ ...base, extraSettings: options.durable ? durabilitySettings(found) : [] });
  const git = gitRunner({
    env,
    cwd: workTree,
    timeoutMs: options.gitTimeoutMs,
    gitBinary: options.gitBinary,
  });

  if (!existsSync(join(gitDir, 'HEAD'))) {
    // `init --bare` refuses a work tree; everything else gets one.
    const { GIT_WORK_TREE: _, ...initEnv } = env;
    const init = gitRunner({
      env: initEnv,
      cwd: workTree,
      timeoutMs: options.gitTimeoutMs,
      gitBinary: options.gitBinary,
    });
    const created = await init(['init', '--bare', '--quiet', '--template=']);
    if (created.code !== 0)
      return gitFailure(`create the checkpoint store in ${gitDir}`, created, 'STORE_UNAVAILABLE');
  }
  try {
    await writeIfChanged(
      join(gitDir, 'info', 'exclude'),
      infoExclude({ gitDir, workTree, excludes: options.excludes }),
    );
    await writeIfChanged(join(gitDir, 'info', 'attributes'), INFO_ATTRIBUTES);
    const stale = await removeStaleLocks(gitDir);
    if (stale.length > 0)
      options.logger?.warn({ gitDir, locks: stale }, 'removed stale git locks from the checkpoint store');
    const temps = await removeStaleTemps(gitDir);
    if (temps.length > 0)
      options.logger?.warn(
        { gitDir, files: temps.length, first: temps.slice(0, 5) },
        'removed temporary object files a killed git or checkpoint left in the checkpoint store',
      );
  } catch (error) {
    return fail(
      'STORE_UNAVAILABLE',
      `Cannot write to the checkpoint store ${gitDir}: ${(error as Error).message}`,
    );
  }
  return ok({ git, gitDir, workTree, gitVersion: found.join('.'), packs: atLeast(found, PACKS_GIT) });
}

function atLeast(found: readonly [number, number], wanted: readonly [number, number]): boolean {
  return found[0] > wanted[0] || (found[0] === wanted[0] && found[1] >= wanted[1]);
}

function durabilitySettings([major, minor]: [number, number]): Array<[string, string]> {
  // core.fsync arrived in 2.36, its batch method (one flush for many objects) in 2.37. In batch mode
  // update-index does not report objects it failed to move into place; write-tree, which checks every
  // object it links, does, so a checkpoint still fails loudly.
  if (major > 2 || minor >= 37)
    return [
      ['core.fsync', 'committed,index'],
      ['core.fsyncMethod', 'batch'],
    ];
  return [['core.fsyncObjectFiles', 'true']];
}

/**
 * Lock files left by a git killed mid-write (index, HEAD, a run branch): each would fail every later
 * checkpoint. The engine's runtime lock makes this process the store's only user, so none is live.
 */
async function removeStaleLocks(gitDir: string): Promise<string[]> {
  const candidates = ['index.lock', 'HEAD.lock', 'packed-refs.lock', 'config.lock'];
  const refs = await readdir(join(gitDir, 'refs'), { recursive: true }).catch(() => []);
  candidates.push(...refs.filter((path) => path.endsWith('.lock')).map((path) => join('refs', path)));
  const removed: string[] = [];
  for (const path of candidates) {
    if (
      await unlink(join(gitDir, path)).then(
        () => true,
        () => false,
      )
    )
      removed.push(path);
  }
  return removed;
}

/**
 * Temporary files of a write a kill cut short: a pack (`objects/pack/tmp_pack_*`, `tmp_idx_*`, ...) or a
 * loose object (`objects/xx/tmp_obj_*`, git's and ours). Nothing refers to them and, with gc off, nothing
 * else would ever remove them. No write is live (the runtime lock, as for removeStaleLocks).
 */
async function removeStaleTemps(gitDir: string): Promise<string[]> {
  const objects = join(gitDir, 'objects');
  const entries = await readdir(objects, { recursive: true }).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const path of entries) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!name.startsWith('tmp_')) continue;
    if (
      await unlink(join(objects, path)).then(
        () => true,
        () => false,
      )
    )
      removed.push(join('objects', path));
  }
  return removed;
}

async function writeIfChanged(path: string, content: string): Promise<void> {
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === content) return;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}
