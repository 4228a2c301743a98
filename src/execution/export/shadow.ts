import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gitEnv } from '../checkpoints/git-env.ts';
import { type GitRun, gitRunner } from '../checkpoints/git-runner.ts';
import { LOG_FORMAT_ARGS, parseLog } from '../checkpoints/history.ts';
import type { CheckpointRecord } from '../checkpoints/index.ts';
import { STORE_DIR_IN_EXECUTION_DIR } from '../checkpoints/index.ts';
import { gitWords, text } from '../workspace/user-git.ts';

/** A failure of the export: `code` 2 for what the user gave, 1 otherwise. */
export class ExportError extends Error {
  readonly code: 1 | 2;
  constructor(message: string, code: 1 | 2 = 1) {
    super(message);
    this.code = code;
  }
}

/** The "before" of a branch that starts from nothing. */
export const ROOT = Symbol('root');

/**
 * Reads an execution's shadow repository, never writing to it: the latest run's history and the
 * diffs between checkpoints. Safe while the server runs (git reads refs and objects atomically)
 * and after a crash (no index or lock of the store is used). `workTree` is any directory of ours.
 */
export function openShadow(executionDir: string, workTree: string, extraEnv: Record<string, string> = {}) {
  const gitDir = join(executionDir, STORE_DIR_IN_EXECUTION_DIR);
  if (!existsSync(join(gitDir, 'HEAD'))) return undefined;
  const git: GitRun = gitRunner({
    env: { ...gitEnv({ gitDir, workTree, path: process.env.PATH, tmpdir: process.env.TMPDIR }), ...extraEnv },
    cwd: workTree,
    timeoutMs: 300_000,
  });
  return {
    git,
    /** The first-parent history of the run started last, oldest first (empty before any run). */
    async latestHistory(): Promise<CheckpointRecord[]> {
      const head = await git(['symbolic-ref', '-q', 'HEAD']);
      if (head.code !== 0) return [];
      const ref = text(head);
      const tip = await git(['rev-parse', '--verify', '--quiet', ref]);
      if (tip.code !== 0) return [];
      const log = await git(['log', ...LOG_FORMAT_ARGS, '--reverse', '--first-parent', ref, '--']);
      if (log.code !== 0) throw new ExportError(`cannot read the checkpoints (git log): ${gitWords(log)}`);
      return parseLog(log.stdout);
    },
    /**
     * `git diff --binary` from one checkpoint to another; from ROOT: every file of `to`, a root commit
     * (the empty tree is not an object of the store, and an export writes nothing to it).
     */
    async diff(from: string | typeof ROOT, to: string): Promise<Buffer> {
      const flags = ['--binary', '--full-index', '--no-renames', '--no-color'];
      const out = await git(
        from === ROOT
          ? ['diff-tree', '-p', '--root', ...flags, to, '--']
          : ['diff', ...flags, from, to, '--'],
      );
      if (out.code !== 0) {
        const span = `${from === ROOT ? 'the start' : from.slice(0, 12)}..${to.slice(0, 12)}`;
        throw new ExportError(`cannot diff ${span}: ${gitWords(out)}`);
      }
      return out.stdout;
    },
  };
}
export type Shadow = NonNullable<ReturnType<typeof openShadow>>;
