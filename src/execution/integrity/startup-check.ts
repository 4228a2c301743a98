import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gitEnv } from '../checkpoints/git-env.ts';
import { gitRunner } from '../checkpoints/git-runner.ts';
import { STORE_DIR_IN_EXECUTION_DIR } from '../checkpoints/index.ts';
import { executionLayout } from '../layout/layout.ts';
import { type DatabaseFacts, type IntegrityVerdict, judgeIntegrity, type StoreFacts } from './verdict.ts';

/** An execution whose history is damaged: the server refuses to start on it (exit 2). */
export class IntegrityError extends Error {
  constructor(executionDir: string, problem: string) {
    super(
      `cannot start on ${executionDir}: ${problem}. Starting anew would build on what is left of its history. ` +
        'Put .ribosome/ back from a backup, or move this execution directory aside and run in a new one.',
    );
    this.name = 'IntegrityError';
  }
}

/**
 * Looks at an execution's journal database (SQLite's quick_check, read-only) and checkpoint store
 * (a git repository whose HEAD resolves once it has runs) before a server opens them.
 */
export async function checkIntegrity(executionDir: string, database: string): Promise<IntegrityVerdict> {
  const { internal, historyLost: lost } = executionLayout(executionDir);
  if (!existsSync(internal)) return { ok: true };
  if (existsSync(lost))
    return {
      ok: false,
      problem: `its history was deleted or replaced under its last server (${readFileSync(lost, 'utf8').trim()}); what is left cannot be resumed`,
    };
  const gitDir = join(executionDir, STORE_DIR_IN_EXECUTION_DIR);
  return judgeIntegrity({
    internalExists: true,
    database: databaseFacts(database),
    store: await storeFacts(gitDir, internal),
  });
}

function databaseFacts(file: string): DatabaseFacts {
  const size = statSync(file, { throwIfNoEntry: false })?.size;
  if (size === undefined) return { kind: 'absent' };
  if (size === 0 && !existsSync(`${file}-wal`)) return { kind: 'empty' };
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true });
    const rows = db.prepare('PRAGMA quick_check').all() as Array<Record<string, unknown>>;
    const said = rows.map((r) => String(Object.values(r)[0])).filter((line) => line !== 'ok');
    if (said.length > 0) return { kind: 'corrupt', why: said.slice(0, 3).join('; ') };
    const tables = new Set(
      (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
      ).map((t) => t.name),
    );
    let records = 0;
    for (const table of ['events', 'transitions']) {
      if (!tables.has(table)) continue;
      records += (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    }
    const checkpoints = tables.has('transitions')
      ? (
          db
            .prepare(
              "SELECT count(*) AS n FROM transitions WHERE type IN ('CheckpointCreated', 'InitialCheckpointSet')",
            )
            .get() as { n: number }
        ).n
      : 0;
    return { kind: 'healthy', records, checkpoints };
  } catch (error) {
    return { kind: 'corrupt', why: (error as Error).message };
  } finally {
    try {
      db?.close();
    } catch {
      // Read-only: nothing to lose.
    }
  }
}

async function storeFacts(gitDir: string, cwd: string): Promise<StoreFacts> {
  // An empty directory (a mount point made for it) is a store not made yet.
  if (!existsSync(gitDir) || readdirSync(gitDir).length === 0) return { kind: 'absent' };
  const git = gitRunner({
    env: gitEnv({ gitDir, workTree: cwd, path: process.env.PATH, tmpdir: process.env.TMPDIR }),
    cwd,
    timeoutMs: 60_000,
  });
  const refs = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/run/']);
  if (refs.code !== 0)
    return { kind: 'corrupt', why: refs.spawnError ?? (refs.stderr || `exit ${refs.code}`) };
  const runs = refs.stdout.toString('utf8').split('\n').filter(Boolean).length;
  const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.code === 0) return { kind: 'repository', runs, headResolves: true };
  // HEAD on a run branch not made yet: a server that died as a run (a rollback's) began, before its
  // first checkpoint made the branch. Recovery goes on from the run it began from.
  const unborn = await git(['symbolic-ref', '--quiet', 'HEAD']);
  const onRunBranch = unborn.code === 0 && unborn.stdout.toString('utf8').startsWith('refs/heads/run/');
  return { kind: 'repository', runs, headResolves: onRunBranch };
}
