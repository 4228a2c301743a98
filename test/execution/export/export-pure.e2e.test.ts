import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { CheckpointRecord } from '../../../src/execution/checkpoints/index.ts';
import { branchNameProblem, checkExportArgs } from '../../../src/execution/export/args.ts';
import { selectLineage } from '../../../src/execution/export/lineage.ts';
import { codonCommitMessage } from '../../../src/execution/export/message.ts';
import { worktreeWithBranch } from '../../../src/execution/export/worktrees.ts';

const cp = (sha: string, over: Partial<CheckpointRecord> = {}): CheckpointRecord => ({
  sha: sha.repeat(40).slice(0, 40),
  parentSha: null,
  runId: 'run-1',
  codonId: 'a',
  codonName: 'Codon a',
  checkpointType: 'completed',
  status: 'completed',
  timestamp: '2025-01-01T00:00:00.000Z',
  initial: false,
  ...over,
});

describe('checkExportArgs', () => {
  it('exactly one target, with --repo and --force only for a branch', () => {
    expect(checkExportArgs({ execution: 'e', toBranch: 'r', repo: 'x', force: true }, '/w')).toEqual({
      ok: true,
      value: { executionDir: '/w/e', target: { kind: 'branch', name: 'r', repo: '/w/x', force: true } },
    });
    expect(checkExportArgs({ execution: 'e', patch: 'p' }, '/w')).toMatchObject({
      ok: true,
      value: { target: { kind: 'patch', file: '/w/p' } },
    });
    for (const flags of [
      { toBranch: 'r' },
      { execution: 'e' },
      { execution: 'e', patch: 'p', dir: 'd' },
      { execution: 'e', patch: 'p', force: true },
      { execution: 'e', dir: 'd', repo: 'x' },
      { execution: 'e', toBranch: 'a b' },
    ]) {
      expect(checkExportArgs(flags, '/w').ok, JSON.stringify(flags)).toBe(false);
    }
  });

  it('branch names git refuses', () => {
    for (const bad of ['', '-x', 'a..b', 'a.lock', 'a/', 'x~1', '.hidden', 'refs/heads/x', 'a@{1}']) {
      expect(branchNameProblem(bad), bad).toBeDefined();
    }
    for (const good of ['result', 'ribosome/result-1', 'v1.2', 'head', 'WIP', 'HEAD/x', 'x/HEAD', 'Head'])
      expect(branchNameProblem(good), good).toBeUndefined();
  });

  it("git's special refs: a branch of that name would be refs/heads/HEAD, shadowed by git", () => {
    for (const name of [
      'HEAD',
      'ORIG_HEAD',
      'FETCH_HEAD',
      'MERGE_HEAD',
      'CHERRY_PICK_HEAD',
      'REBASE_HEAD',
      'AUTO_MERGE',
    ])
      expect(branchNameProblem(name), name).toMatch(/special git ref/);
  });

  it('refuses every name git check-ref-format --branch refuses', () => {
    const names = [
      'HEAD',
      '/a',
      'a/',
      'a//b',
      'a.lock/b',
      'b/a.lock',
      'a/.b',
      '-x',
      'a b',
      'a@{b',
      'a..b',
      'a.',
      'a\\b',
      'a\tb',
      'a:b',
      'a?b',
      'a*b',
      'a[b',
      'x^',
      '@',
      'ok/name',
    ];
    for (const name of names) {
      const git = spawnSync('git', ['check-ref-format', '--branch', name]);
      if (git.status !== 0) expect(branchNameProblem(name), name).toBeDefined();
    }
    expect(branchNameProblem('ok/name')).toBeUndefined();
  });
});

describe('selectLineage', () => {
  it('the first checkpoint, then only the completed codons, in order', () => {
    const history = [
      cp('1', { initial: true, codonId: '', checkpointType: 'rig-setup', status: 'pending' }),
      cp('2', { codonId: 'a', checkpointType: 'rig-setup', status: 'running' }),
      cp('3', { codonId: 'a' }),
      cp('4', { codonId: 'b', checkpointType: 'error', status: 'failed' }),
      cp('5', { initial: true, runId: 'run-2', codonId: '', checkpointType: 'rig-setup', status: 'pending' }),
      cp('6', { codonId: 'b', runId: 'run-2' }),
    ];
    const selected = selectLineage(history);
    expect(selected.ok && selected.value.base.sha[0]).toBe('1');
    expect(selected.ok && selected.value.codons.map((c) => c.sha[0])).toEqual(['3', '6']);
    expect(selected.ok && selected.value.runId).toBe('run-2');
  });

  it('nothing completed, or nothing at all: a message', () => {
    expect(selectLineage([])).toMatchObject({ ok: false });
    const none = selectLineage([cp('1', { initial: true, checkpointType: 'rig-setup', status: 'pending' })]);
    expect(none.ok === false && none.message).toContain('no codon has completed');
  });
});

describe('codonCommitMessage', () => {
  it("the codon's name as subject, its id and checkpoint as trailers; control characters flattened", () => {
    const message = codonCommitMessage(cp('3', { codonName: 'Fix\nthe bug', codonId: 'fix' }));
    expect(message.split('\n')[0]).toBe('Fix the bug');
    expect(message).toContain('\nRibosome-Codon-Id: fix\n');
    expect(message).toContain(`Ribosome-Checkpoint: ${'3'.repeat(40)}`);
  });

  it('a codon without a name is named by its id', () => {
    expect(codonCommitMessage(cp('3', { codonName: '', codonId: 'x' })).split('\n')[0]).toBe('x');
  });
});

describe('worktreeWithBranch', () => {
  const listed = [
    'worktree /r/main',
    'HEAD 1111111111111111111111111111111111111111',
    'branch refs/heads/main',
    '',
    'worktree /r/linked',
    'HEAD 2222222222222222222222222222222222222222',
    'branch refs/heads/feature',
    'prunable gitdir file points to non-existent location',
    '',
    'worktree /r/detached',
    'HEAD 3333333333333333333333333333333333333333',
    'detached',
    '',
  ].join('\n');

  it('names the worktree that has the branch checked out, whichever it is', () => {
    expect(worktreeWithBranch(listed, 'refs/heads/main')).toBe('/r/main');
    expect(worktreeWithBranch(listed, 'refs/heads/feature')).toBe('/r/linked');
    expect(worktreeWithBranch(listed, 'refs/heads/feat')).toBeUndefined();
    expect(worktreeWithBranch(listed, 'refs/heads/result')).toBeUndefined();
    expect(worktreeWithBranch('worktree /r/bare.git\nbare\n\n', 'refs/heads/main')).toBeUndefined();
  });
});
