/** cloneWorkspace: the agent root becomes the clone whole, or stays as it was. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cloneWorkspace, resolveWorkspace } from '../../../src/execution/workspace/index.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-clone-'));
  made.push(dir);
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'zz'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'a.txt'), 'a\n');
  writeFileSync(join(repo, 'zz/b.txt'), 'b\n');
  git(repo, 'add', '.');
  git(repo, '-c', 'user.name=U', '-c', 'user.email=u@example.invalid', 'commit', '-qm', 'c');
  const exec = join(dir, 'exec');
  return {
    repo,
    layout: { executionDir: exec, internal: join(exec, '.ribosome'), agentRoot: join(exec, 'agentRoot') },
  };
}

describe('cloneWorkspace', () => {
  it('a move that fails half-way takes back what it moved: no half-made agent root, no record', async () => {
    const { repo, layout } = setup();
    // A non-empty directory where the clone has one: that rename fails (ENOTEMPTY), whatever the order.
    mkdirSync(join(layout.agentRoot, 'zz'), { recursive: true });
    writeFileSync(join(layout.agentRoot, 'zz/mine.txt'), 'x');
    await expect(cloneWorkspace(await resolveWorkspace({ path: repo }), layout)).rejects.toThrow();
    expect(readdirSync(layout.agentRoot)).toEqual(['zz']);
    expect(readdirSync(join(layout.agentRoot, 'zz'))).toEqual(['mine.txt']);
    expect(existsSync(join(layout.internal, 'workspace.json'))).toBe(false);
    expect(existsSync(join(layout.internal, 'workspace-clone'))).toBe(false);
  });

  it('a clone that fails leaves nothing behind', async () => {
    const { repo, layout } = setup();
    const resolved = await resolveWorkspace({ path: repo });
    await expect(cloneWorkspace({ ...resolved, repo: join(repo, 'gone') }, layout)).rejects.toThrow(
      'cannot clone',
    );
    expect(existsSync(layout.agentRoot)).toBe(false);
    expect(readdirSync(layout.internal)).toEqual([]);
  });

  it('a clean clone: the files, the .git, and the record', async () => {
    const { repo, layout } = setup();
    await cloneWorkspace(await resolveWorkspace({ path: repo }), layout);
    expect(readdirSync(layout.agentRoot).sort()).toEqual(['.git', 'a.txt', 'zz']);
    expect(existsSync(join(layout.internal, 'workspace.json'))).toBe(true);
    expect(existsSync(join(layout.internal, 'workspace-clone'))).toBe(false);
  });
});
