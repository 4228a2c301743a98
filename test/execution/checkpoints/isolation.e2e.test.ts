import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CheckpointStore } from '../../../src/execution/checkpoints/index.ts';
import {
  bash,
  checkpointOf,
  openStore,
  read,
  showFile,
  snapshotTree,
  tempExecution,
  treePaths,
  unwrap,
  userGit,
  workFiles,
  write,
} from './helpers.ts';

/** A user repository with a commit, a branch, a tag, an edited index, config and hooks that tattle. */
function makeUserRepo(root: string, markerDir: string): void {
  userGit(root, ['init', '-q', '-b', 'main']);
  write(root, 'src/main.ts', 'export {};\n');
  write(root, '.gitignore', '*.log\n');
  userGit(root, ['add', '-A']);
  userGit(root, ['commit', '-q', '-m', 'user commit']);
  userGit(root, ['branch', 'feature']);
  userGit(root, ['tag', 'v1']);
  userGit(root, ['config', 'user.name', 'Someone']);
  write(root, 'staged.txt', 'staged by the user\n');
  userGit(root, ['add', 'staged.txt']);
  for (const hook of [
    'pre-commit',
    'post-commit',
    'post-checkout',
    'post-index-change',
    'reference-transaction',
  ]) {
    write(root, `.git/hooks/${hook}`, `#!/bin/sh\ntouch "${markerDir}/${hook}"\n`);
    chmodSync(join(root, '.git/hooks', hook), 0o755);
  }
}

/** Commits, changes, more commits and restores: everything a run does to an agent root. */
async function exercise(store: CheckpointStore, agentRoot: string): Promise<string[]> {
  const shas = [unwrap(await store.startRun('r')).sha];
  write(agentRoot, 'src/agent.ts', 'agent work\n');
  shas.push(unwrap(await checkpointOf(store, 'r', 'c1')).sha);
  bash('rm -f staged.txt; echo more > more.txt; echo noise > debug.log', agentRoot);
  shas.push(unwrap(await checkpointOf(store, 'r', 'c2', 'error')).sha);
  unwrap(await store.restore(shas[0]!));
  unwrap(await store.restore(shas[2]!));
  unwrap(await store.list('r'));
  unwrap(await store.diffStat(shas[0]!, shas[2]!));
  return shas;
}

describe('isolation from the user’s git', () => {
  it('never writes a user repository in the agent root, nor checkpoints its .git', async () => {
    const { store, agentRoot, dir } = await openStore();
    const markers = join(dir, 'markers');
    mkdirSync(markers);
    makeUserRepo(agentRoot, markers);
    // Before the snapshot: status refreshes (rewrites) the user's index.
    const statusBefore = userGit(agentRoot, ['status', '--porcelain']);
    bash('rm -f ./*', markers);
    const before = snapshotTree(join(agentRoot, '.git'));

    const shas = await exercise(store, agentRoot);

    expect(snapshotTree(join(agentRoot, '.git'))).toEqual(before);
    expect(bash('ls -A', markers)).toBe('');
    for (const sha of shas) {
      expect(treePaths(store, sha).filter((p) => p.split('/').includes('.git'))).toEqual([]);
    }
    expect(treePaths(store, shas[0]!)).toEqual(['.gitignore', 'src/main.ts', 'staged.txt']);
    // The user's view after the agent's work: their HEAD, branches and staged file as they left them.
    expect(userGit(agentRoot, ['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('main');
    expect(userGit(agentRoot, ['diff', '--cached', '--name-only']).trim()).toBe('staged.txt');
    expect(statusBefore).toContain('A  staged.txt');
  });

  it('captures a nested repository’s files but never its .git, and restores without touching it', async () => {
    const { store, agentRoot, dir } = await openStore();
    const markers = join(dir, 'markers');
    mkdirSync(markers);
    mkdirSync(join(agentRoot, 'vendor/lib'), { recursive: true });
    makeUserRepo(join(agentRoot, 'vendor/lib'), markers);
    write(agentRoot, 'vendor/lib/debug.log', 'ignored by the nested .gitignore');
    // A repository without a commit: `git add -A` would fail on it.
    mkdirSync(join(agentRoot, 'fresh'));
    userGit(join(agentRoot, 'fresh'), ['init', '-q']);
    write(agentRoot, 'fresh/notes.md', 'notes');
    const nestedBefore = snapshotTree(join(agentRoot, 'vendor/lib/.git'));
    const freshBefore = snapshotTree(join(agentRoot, 'fresh/.git'));

    const initial = unwrap(await store.startRun('r'));
    expect(treePaths(store, initial.sha)).toEqual([
      'fresh/notes.md',
      'vendor/lib/.gitignore',
      'vendor/lib/src/main.ts',
      'vendor/lib/staged.txt',
    ]);
    write(agentRoot, 'vendor/lib/src/main.ts', 'changed by the agent\n');
    write(agentRoot, 'vendor/lib/src/added.ts', 'added\n');
    const changed = unwrap(await checkpointOf(store, 'r', 'c1'));
    expect(showFile(store, changed.sha, 'vendor/lib/src/main.ts')).toBe('changed by the agent\n');
    expect(treePaths(store, changed.sha)).toContain('vendor/lib/src/added.ts');

    unwrap(await store.restore(initial.sha));
    expect(read(agentRoot, 'vendor/lib/src/main.ts')).toBe('export {};\n');
    expect(existsSync(join(agentRoot, 'vendor/lib/src/added.ts'))).toBe(false);
    expect(read(agentRoot, 'vendor/lib/debug.log')).toBe('ignored by the nested .gitignore');
    expect(snapshotTree(join(agentRoot, 'vendor/lib/.git'))).toEqual(nestedBefore);
    expect(snapshotTree(join(agentRoot, 'fresh/.git'))).toEqual(freshBefore);
    expect(bash('ls -A', markers)).toBe('');
  });

  it('removes the files of a repository cloned after the checkpoint, and keeps its .git', async () => {
    const { store, agentRoot, dir } = await openStore();
    write(agentRoot, 'app.ts', 'app');
    const initial = unwrap(await store.startRun('r'));
    mkdirSync(join(agentRoot, 'clone'));
    makeUserRepo(join(agentRoot, 'clone'), dir);
    unwrap(await checkpointOf(store, 'r', 'c1'));
    const cloneGit = snapshotTree(join(agentRoot, 'clone/.git'));
    write(agentRoot, 'clone/later.txt', 'after the last checkpoint');

    const restored = unwrap(await store.restore(initial.sha));
    expect(workFiles(agentRoot)).toEqual(['app.ts']);
    expect(snapshotTree(join(agentRoot, 'clone/.git'))).toEqual(cloneGit);
    expect(restored.removedFiles).toBe(4);
  });

  it('refuses to restore a file over a directory that holds a repository', async () => {
    const { store, agentRoot, dir } = await openStore();
    write(agentRoot, 'pkg', 'a file for now');
    const initial = unwrap(await store.startRun('r'));
    bash('rm pkg && mkdir pkg', agentRoot);
    makeUserRepo(join(agentRoot, 'pkg'), dir);
    unwrap(await checkpointOf(store, 'r', 'c1'));
    const repo = snapshotTree(join(agentRoot, 'pkg/.git'));
    // Untracked by the store again (as if made after the last checkpoint).
    bash('rm -rf pkg/src', agentRoot);

    const refused = await store.restore(initial.sha);
    expect(refused.ok ? 'ok' : refused.error.code).toBe('RESTORE_FAILED');
    expect(refused.ok ? '' : refused.error.message).toContain('pkg');
    expect(snapshotTree(join(agentRoot, 'pkg/.git'))).toEqual(repo);
  });

  it('never touches a user repository the execution directory sits in', async () => {
    const { dir, agentRoot } = tempExecution();
    makeUserRepo(dir, dir);
    const before = snapshotTree(join(dir, '.git'));
    const store = unwrap(await CheckpointStore.open({ executionDir: dir, workTree: agentRoot }));
    await exercise(store, agentRoot);
    expect(snapshotTree(join(dir, '.git'))).toEqual(before);
  });

  it('ignores a .git file (a linked work tree) in the agent root', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, '.git', 'gitdir: /somewhere/else\n');
    write(agentRoot, 'a.txt', 'a');
    const initial = unwrap(await store.startRun('r'));
    expect(treePaths(store, initial.sha)).toEqual(['a.txt']);
  });

  it('ignores the user’s GIT_* variables and their global and system config', async () => {
    const { dir, agentRoot } = tempExecution();
    const markers = join(dir, 'markers');
    mkdirSync(markers);
    makeUserRepo(agentRoot, markers);
    const home = join(dir, 'home');
    write(
      home,
      '.gitconfig',
      '[core]\n\tautocrlf = true\n\texcludesFile = ~/global-ignore\n\thooksPath = ~/hooks\n',
    );
    write(home, 'global-ignore', '*.ts\n');
    write(home, '.config/git/ignore', '*.md\n');
    write(home, '.config/git/attributes', '* text eol=crlf\n');
    const before = snapshotTree(join(agentRoot, '.git'));
    vi.stubEnv('HOME', home);
    vi.stubEnv('XDG_CONFIG_HOME', join(home, '.config'));
    vi.stubEnv('GIT_DIR', join(agentRoot, '.git'));
    vi.stubEnv('GIT_WORK_TREE', agentRoot);
    vi.stubEnv('GIT_INDEX_FILE', join(agentRoot, '.git/index'));
    vi.stubEnv('GIT_OBJECT_DIRECTORY', join(agentRoot, '.git/objects'));
    vi.stubEnv('GIT_CONFIG_PARAMETERS', "'core.hookspath'='/nowhere'");
    vi.stubEnv('GIT_CONFIG_COUNT', '1');
    vi.stubEnv('GIT_CONFIG_KEY_0', 'core.autocrlf');
    vi.stubEnv('GIT_CONFIG_VALUE_0', 'true');
    try {
      const store = unwrap(await CheckpointStore.open({ executionDir: dir, workTree: agentRoot }));
      write(agentRoot, 'notes.md', 'line\n');
      const shas = await exercise(store, agentRoot);
      expect(treePaths(store, shas[1]!)).toEqual([
        '.gitignore',
        'notes.md',
        'src/agent.ts',
        'src/main.ts',
        'staged.txt',
      ]);
      expect(showFile(store, shas[1]!, 'notes.md')).toBe('line\n');
      expect(store.gitDir.startsWith(dir)).toBe(true);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(snapshotTree(join(agentRoot, '.git'))).toEqual(before);
    expect(bash('ls -A', markers)).toBe('');
  });

  it('stores and restores bytes exactly, whatever the tree’s .gitattributes ask for', async () => {
    const { store, agentRoot } = await openStore();
    write(
      agentRoot,
      '.gitattributes',
      '*.txt text eol=crlf\n*.bin filter=lfs diff=lfs merge=lfs\n*.id ident\n',
    );
    write(agentRoot, 'lf.txt', 'one\ntwo\n');
    write(agentRoot, 'crlf.txt', 'one\r\ntwo\r\n');
    write(agentRoot, 'data.bin', Buffer.from([0, 13, 10, 255]));
    write(agentRoot, 'x.id', '$Id$\n');
    const initial = unwrap(await store.startRun('r'));
    expect(showFile(store, initial.sha, 'lf.txt')).toBe('one\ntwo\n');
    expect(showFile(store, initial.sha, 'crlf.txt')).toBe('one\r\ntwo\r\n');
    bash('rm lf.txt crlf.txt data.bin x.id', agentRoot);
    unwrap(await checkpointOf(store, 'r', 'c1'));
    unwrap(await store.restore(initial.sha));
    expect(read(agentRoot, 'lf.txt')).toBe('one\ntwo\n');
    expect(read(agentRoot, 'crlf.txt')).toBe('one\r\ntwo\r\n');
    expect(readFileSync(join(agentRoot, 'data.bin'))).toEqual(Buffer.from([0, 13, 10, 255]));
    expect(read(agentRoot, 'x.id')).toBe('$Id$\n');
  });
});
