/** `--workspace` starts the agent root from a user's repository; `ribosome export` hands the result back. */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { idleAfter } from '../../helpers/idle-after.ts';
import { codonScript, writeTurns } from '../../helpers/plans.ts';
import { runCli, runToEnd, startServer, tempDir } from '../../helpers/server-process.ts';

const { temps, clients } = e2eResources();

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();

const PLAN = (extra = '') => `name: ws
agent: builtin
${extra}codons:
  - id: one
    name: Codon one
    prompt: Do one.
    rigSetup:
      - copy: { from: notes.md, to: docs }
  - id: two
    name: Codon two
    prompt: Do two.
`;

/** A repository with two commits (a binary file in the first) and the tag v1 on the first. */
function setup(plan = PLAN(), script = codonScript({ one: 'ok', two: 'ok' })) {
  const t = tempDir();
  temps.push(t);
  const repo = join(t.path, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'User');
  git(repo, 'config', 'user.email', 'user@example.invalid');
  writeFileSync(join(repo, 'a.txt'), 'first\n');
  writeFileSync(join(repo, 'b.bin'), Buffer.from([0, 1, 2, 255, 0]));
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'first');
  git(repo, 'tag', 'v1');
  writeFileSync(join(repo, 'a.txt'), 'second\n');
  git(repo, 'commit', '-qam', 'second');
  writeFileSync(join(repo, 'dirty.txt'), 'the user is working here\n');
  const planFile = join(t.path, 'plan.yaml');
  writeFileSync(planFile, plan);
  writeFileSync(join(t.path, 'notes.md'), '# notes\n');
  const scriptFile = join(t.path, 'script.yaml');
  writeFileSync(scriptFile, script);
  return { dir: t.path, repo, plan: planFile, script: scriptFile, exec: join(t.path, 'exec') };
}

/** Everything of the user's repository an export must leave alone. */
const repoState = (repo: string) => ({
  refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)')
    .split('\n')
    .filter((l) => !l.startsWith('refs/heads/result ')),
  head: readFileSync(join(repo, '.git/HEAD'), 'utf8'),
  index: readFileSync(join(repo, '.git/index')).toString('base64'),
  status: git(repo, 'status', '--porcelain'),
});

const exportCli = async (args: string[]) => {
  const proc = runCli(['export', ...args]);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
};

describe('--workspace, then ribosome export', () => {
  // One run and a dozen export commands, each a process of its own: more than the 30 s default on a loaded machine.
  it('clones the repository at a tag, and exports one commit per codon, a patch and the files', async () => {
    const w = setup();
    const before = repoState(w.repo);
    const ran = await runToEnd(w.plan, w.exec, w.script, ['--workspace', `${w.repo}@v1`]);
    expect(ran.code, ran.stderr).toBe(0);
    const root = join(w.exec, 'agentRoot');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('first\n');
    expect(existsSync(join(root, 'dirty.txt'))).toBe(false);
    expect(git(root, 'remote')).toBe('');
    const tagCommit = git(w.repo, 'rev-parse', 'v1^{commit}');
    expect(JSON.parse(readFileSync(join(w.exec, '.ribosome/workspace.json'), 'utf8'))).toMatchObject({
      repo: w.repo,
      ref: 'v1',
      commit: tagCommit,
    });

    const exported = await exportCli(['--execution', w.exec, '--to-branch', 'result']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('2 commit(s)');
    expect(git(w.repo, 'log', '--format=%s', `${tagCommit}..result`).split('\n')).toEqual([
      'Codon two',
      'Codon one',
    ]);
    expect(git(w.repo, 'rev-parse', 'result~2')).toBe(tagCommit);
    expect(git(w.repo, 'log', '-1', '--format=%b', 'result~1')).toContain('Ribosome-Codon-Id: one');
    expect(git(w.repo, 'diff', '--name-only', 'result~2', 'result~1').split('\n').sort()).toEqual([
      'docs',
      'one.txt',
    ]);
    expect(git(w.repo, 'diff', '--name-only', 'result~1', 'result')).toBe('two.txt');
    expect(git(w.repo, 'show', 'result:two.txt')).toBe('two done');
    expect(git(w.repo, 'show', 'result:a.txt')).toBe('first');
    expect(repoState(w.repo)).toEqual(before);

    // An existing branch is refused without --force.
    const again = await exportCli(['--execution', w.exec, '--to-branch', 'result']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');

    // git's special refs are no branch names: refs/heads/HEAD would be shadowed by HEAD itself.
    for (const name of ['HEAD', 'ORIG_HEAD', 'FETCH_HEAD']) {
      const special = await exportCli(['--execution', w.exec, '--to-branch', name, '--force']);
      expect(special.code, name).toBe(2);
      expect(special.stderr).toContain(`--to-branch "${name}": is the name of a special git ref`);
      expect(existsSync(join(w.repo, '.git/refs/heads', name))).toBe(false);
    }
    expect(git(w.repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe(
      'refs/heads/main\nrefs/heads/result',
    );
    expect(repoState(w.repo)).toEqual(before);

    const patch = join(w.dir, 'out.patch');
    expect((await exportCli(['--execution', w.exec, '--patch', patch])).code).toBe(0);
    const fresh = join(w.dir, 'fresh');
    execFileSync('git', ['clone', '-q', w.repo, fresh]);
    git(fresh, 'checkout', '-q', 'v1');
    git(fresh, 'apply', '--check', patch);
    git(fresh, 'apply', patch);
    expect(readFileSync(join(fresh, 'two.txt'), 'utf8')).toBe('two done');
    expect(readFileSync(join(fresh, 'docs'), 'utf8')).toBe('# notes\n');

    const out = join(w.dir, 'out');
    const dir = await exportCli(['--execution', w.exec, '--dir', out]);
    expect(dir.code, dir.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['a.txt', 'b.bin', 'docs', 'one.txt', 'two.txt']);
    expect(readFileSync(join(out, 'b.bin'))).toEqual(Buffer.from([0, 1, 2, 255, 0]));
    expect((await exportCli(['--execution', w.exec, '--dir', out])).code).toBe(2);
  }, 90_000);

  it('a codon rolled back and run again is exported once, with its new content (export while the server runs)', async () => {
    const script = `tracks:
  - name: one
    match: { firstUser: "Do one." }
    loop: true
    turns:
${writeTurns('one.txt', 'one done').replace(/^(?=.)/gm, '    ')}  - name: two
    match: { firstUser: "Do two." }
    turns:
${writeTurns('two.txt', 'first try').replace(/^(?=.)/gm, '    ')}${writeTurns('two.txt', 'second try').replace(/^(?=.)/gm, '    ')}turns: []
`;
    // The plan names the workspace, relative to the plan file, at the repository's HEAD.
    const w = setup(PLAN('workspace: repo\n'), script);
    const server = await startServer(w.plan, w.exec, ['--no-autostart', '--scripted-provider', w.script]);
    const c = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
    clients.push(c);
    expect(readFileSync(join(w.exec, 'agentRoot/a.txt'), 'utf8')).toBe('second\n');
    for (let i = 0; i < 2; i++) {
      const idle = c.next('server.idle', () => true, 30_000);
      c.send('codon.next');
      await idle;
    }
    const rolled = c.next('server.idle', () => true, 30_000);
    c.send('rollback.toCodon', { codonId: 'two', checkpointType: 'start' });
    await rolled;
    const redone = c.next('server.idle', () => true, 30_000);
    c.send('codon.redo');
    await redone;
    expect(readFileSync(join(w.exec, 'agentRoot/two.txt'), 'utf8')).toBe('second try');

    const exported = await exportCli(['--execution', w.exec, '--to-branch', 'result']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(git(w.repo, 'log', '--format=%s', 'main..result').split('\n')).toEqual(['Codon two', 'Codon one']);
    expect(git(w.repo, 'show', 'result:two.txt')).toBe('second try');
  });

  it('an unknown ref or a folder that is no repository: exit 2 before anything starts', async () => {
    const w = setup();
    const unknown = await runToEnd(w.plan, w.exec, w.script, ['--workspace', `${w.repo}@nope`]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"nope"');
    expect(existsSync(w.exec)).toBe(false);
    const notRepo = await runToEnd(w.plan, w.exec, w.script, ['--workspace', w.dir]);
    expect(notRepo.code).toBe(2);
    expect(notRepo.stderr).toContain('is not a git repository');
  });

  it('nothing completed yet: export says so and exits 1; a resume keeps the recorded workspace', async () => {
    const w = setup();
    const server = await startServer(w.plan, w.exec, [
      '--no-autostart',
      '--scripted-provider',
      w.script,
      '--workspace',
      `${w.repo}@v1`,
    ]);
    const early = await exportCli(['--execution', w.exec, '--patch', join(w.dir, 'p')]);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/nothing to export/);
    server.kill('SIGTERM');
    await server.exited;

    const resumed = await runToEnd(w.plan, w.exec, w.script, ['--workspace', `${w.repo}@main`]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('it is kept');
    expect(readFileSync(join(w.exec, 'agentRoot/a.txt'), 'utf8')).toBe('first\n');
  });

  it('a non-empty agent root on a fresh execution is refused (exit 2)', async () => {
    const w = setup();
    mkdirSync(join(w.exec, 'agentRoot'), { recursive: true });
    writeFileSync(join(w.exec, 'agentRoot/mine.txt'), 'x');
    const ran = await runToEnd(w.plan, w.exec, w.script, ['--workspace', w.repo]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('mine.txt');
  });

  it('without a workspace: --repo is needed, and the branch starts with a root commit', async () => {
    const w = setup();
    const ran = await runToEnd(w.plan, w.exec, w.script);
    expect(ran.code, ran.stderr).toBe(0);
    const refused = await exportCli(['--execution', w.exec, '--to-branch', 'result']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--repo');
    const other = join(w.dir, 'other');
    mkdirSync(other);
    git(other, 'init', '-q');
    const exported = await exportCli(['--execution', w.exec, '--to-branch', 'result', '--repo', other]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(git(other, 'log', '--format=%s', 'result').split('\n')).toEqual([
      'Codon two',
      'Codon one',
      'Starting point of the Ribosome run',
    ]);
    expect(git(other, 'rev-list', '--max-parents=0', 'result').split('\n')).toHaveLength(1);
    expect(git(other, 'show', 'result:one.txt')).toBe('one done');
  });
});

describe('export and workspace: what they refuse (issue 13 trial)', () => {
  it('--force never replaces a branch checked out in a worktree of the repository, linked or main', async () => {
    const w = setup();
    git(w.repo, 'branch', 'feature', 'v1');
    const wt = join(w.dir, 'wt');
    git(w.repo, 'worktree', 'add', '-q', wt, 'feature');
    const ran = await runToEnd(w.plan, w.exec, w.script, ['--workspace', wt]);
    expect(ran.code, ran.stderr).toBe(0);
    const before = { repo: repoState(w.repo), wt: git(wt, 'status', '--porcelain') };

    // The workspace is the linked worktree; main is checked out in the main one.
    const main = await exportCli(['--execution', w.exec, '--to-branch', 'main', '--force']);
    expect(main.code).toBe(2);
    expect(main.stderr).toContain(`main is the branch checked out in ${realpathSync(w.repo)}`);
    const feature = await exportCli([
      ...['--execution', w.exec, '--repo', w.repo, '--to-branch', 'feature', '--force'],
    ]);
    expect(feature.code).toBe(2);
    expect(feature.stderr).toContain(`feature is the branch checked out in ${realpathSync(wt)}`);
    expect({ repo: repoState(w.repo), wt: git(wt, 'status', '--porcelain') }).toEqual(before);

    // An unborn branch checked out is not born under its worktree either.
    const other = join(w.dir, 'other');
    mkdirSync(other);
    git(other, 'init', '-q', '-b', 'trunk');
    const unborn = await exportCli(['--execution', w.exec, '--repo', other, '--to-branch', 'trunk']);
    expect(unborn.code).toBe(2);
    expect(unborn.stderr).toContain('checked out in');

    const result = await exportCli(['--execution', w.exec, '--to-branch', 'result']);
    expect(result.code, result.stderr).toBe(0);
    expect(git(w.repo, 'rev-parse', 'result~2')).toBe(git(w.repo, 'rev-parse', 'v1^{commit}'));
  });

  it('export --dir inside the execution directory (agent root included, through a link too): exit 2', async () => {
    const w = setup();
    const ran = await runToEnd(w.plan, w.exec, w.script);
    expect(ran.code, ran.stderr).toBe(0);
    const link = join(w.dir, 'link');
    symlinkSync(join(w.exec, 'agentRoot'), link);
    const entries = readdirSync(join(w.exec, 'agentRoot')).sort();
    for (const dir of [join(w.exec, 'agentRoot/out'), join(w.exec, 'out'), join(link, 'out'), w.exec]) {
      const refused = await exportCli(['--execution', w.exec, '--dir', dir]);
      expect(refused.code, dir).toBe(2);
      expect(refused.stderr).toContain('is inside the execution directory');
    }
    expect(existsSync(join(w.exec, 'out'))).toBe(false);
    expect(readdirSync(join(w.exec, 'agentRoot')).sort()).toEqual(entries);
  });

  it('a folder inside a repository, or a repository tracking ribosome-data: exit 2, nothing cloned', async () => {
    const w = setup();
    mkdirSync(join(w.repo, 'src'));
    const inside = await runToEnd(w.plan, w.exec, w.script, ['--workspace', join(w.repo, 'src')]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain(
      `${join(w.repo, 'src')} is a folder inside the git repository at ${realpathSync(w.repo)}; name that top folder`,
    );
    expect(inside.stderr).not.toContain('fatal');

    mkdirSync(join(w.repo, 'ribosome-data'));
    writeFileSync(join(w.repo, 'ribosome-data/x.csv'), '1\n');
    git(w.repo, 'add', 'ribosome-data');
    git(w.repo, 'commit', '-qm', 'data');
    const clash = await runToEnd(w.plan, w.exec, w.script, ['--workspace', w.repo]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('has a path named ribosome-data');
    expect(existsSync(w.exec)).toBe(false);
    // A commit without it starts.
    const older = await runToEnd(w.plan, w.exec, w.script, ['--workspace', `${w.repo}@v1`]);
    expect(older.code, older.stderr).toBe(0);
  });

  it('a file the repository tracks although ignored is checkpointed: rollback, resume and export keep it', async () => {
    const script = `tracks:
  - name: one
    match: { firstUser: "Do one." }
    loop: true
    turns:
${writeTurns('keep.log', 'one').replace(/^(?=.)/gm, '    ')}  - name: two
    match: { firstUser: "Do two." }
    loop: true
    turns:
${writeTurns('keep.log', 'two').replace(/^(?=.)/gm, '    ')}turns: []
`;
    const w = setup(PLAN(), script);
    writeFileSync(join(w.repo, '.gitignore'), '*.log\n');
    writeFileSync(join(w.repo, 'keep.log'), 'kept\n');
    git(w.repo, 'add', '.gitignore');
    git(w.repo, 'add', '-f', 'keep.log');
    git(w.repo, 'commit', '-qm', 'a tracked ignored file');
    const keepLog = () => readFileSync(join(w.exec, 'agentRoot/keep.log'), 'utf8');
    const args = ['--no-autostart', '--scripted-provider', w.script, '--workspace', w.repo];
    // The idle after the command's own effect: a restarted server may publish its startup idle after
    // the client connected (a CI run read the tree then, too soon).
    const step = async (c: RibosomeClient, command: string, data?: object) => {
      const idle = idleAfter(
        c,
        command === 'rollback.toCodon' ? 'rollback.completed' : 'codon.started',
        30_000,
      );
      c.send(command as 'codon.next', data as never);
      await idle;
    };

    let server = await startServer(w.plan, w.exec, args);
    let c = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
    clients.push(c);
    await step(c, 'codon.next');
    expect(keepLog()).toBe('one');
    await step(c, 'rollback.toCodon', { codonId: 'one', checkpointType: 'start' });
    expect(keepLog()).toBe('kept\n');
    await step(c, 'codon.redo');
    expect(keepLog()).toBe('one');
    server.kill('SIGTERM');
    await server.exited;

    // Resumed: the next codon's checkpoints still take it.
    server = await startServer(w.plan, w.exec, args);
    c = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
    clients.push(c);
    await step(c, 'codon.next');
    expect(keepLog()).toBe('two');
    await step(c, 'rollback.toCodon', { codonId: 'two', checkpointType: 'start' });
    expect(keepLog()).toBe('one');
    await step(c, 'codon.redo');
    expect(keepLog()).toBe('two');

    const exported = await exportCli(['--execution', w.exec, '--to-branch', 'result']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(git(w.repo, 'log', '--format=%s', 'main..result').split('\n')).toEqual(['Codon two', 'Codon one']);
    expect(git(w.repo, 'show', 'result~1:keep.log')).toBe('one');
    expect(git(w.repo, 'show', 'result:keep.log')).toBe('two');
    const patch = join(w.dir, 'out.patch');
    expect((await exportCli(['--execution', w.exec, '--patch', patch])).code).toBe(0);
    expect(readFileSync(patch, 'utf8')).toContain('+++ b/keep.log');
    // Two servers, four codons, two rollbacks and two exports: more than the default on a loaded machine.
  }, 120_000);
});
