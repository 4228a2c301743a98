import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointOf, openStore, tempExecution, treePaths, unwrap, write } from './helpers.ts';

/** What the store says its checkpoints leave out, against what a checkpoint then holds. */
describe('CheckpointStore.ignoredPaths', () => {
  it('names the ignored paths a checkpoint leaves out, and no other', async () => {
    const { store, agentRoot } = await openStore({ excludes: ['secret-*'], include: ['build/keep.txt'] });
    write(agentRoot, '.gitignore', 'package-lock.json\nbuild/\n');
    write(agentRoot, 'sub/.gitignore', '*.log\n');
    const files = [
      'kept.txt',
      'package-lock.json',
      'build/out.js',
      'build/keep.txt',
      'sub/run.log',
      'sub/run.txt',
      'secret-token',
      'naïve.txt',
    ];
    for (const path of files) write(agentRoot, path, `${path}\n`);
    unwrap(await store.startRun('run-1'));
    const sha = unwrap(await checkpointOf(store, 'run-1', 'one')).sha;

    const ignored = unwrap(await store.ignoredPaths([...files, 'gone/package-lock.json']));
    expect([...ignored].sort()).toEqual([
      'build/out.js',
      'gone/package-lock.json',
      'package-lock.json',
      'secret-token',
      'sub/run.log',
    ]);
    // The store's word and its checkpoint agree on every file.
    const held = treePaths(store, sha);
    for (const path of files) expect(held.includes(path)).toBe(!ignored.has(path));
  });

  it('does not name a file a checkpoint took before a .gitignore matched it: later ones take it too', async () => {
    const { store, agentRoot } = await openStore();
    write(agentRoot, 'package-lock.json', '{}\n');
    unwrap(await store.startRun('run-1'));
    write(agentRoot, '.gitignore', 'package-lock.json\n');
    write(agentRoot, 'package-lock.json', '{"v":2}\n');
    expect(unwrap(await store.ignoredPaths(['package-lock.json'])).size).toBe(0);
    const sha = unwrap(await checkpointOf(store, 'run-1', 'one')).sha;
    expect(treePaths(store, sha)).toContain('package-lock.json');
  });

  it('asks git once for many paths', async () => {
    const { dir } = tempExecution();
    const calls = join(dir, 'calls');
    writeFileSync(calls, '');
    const wrapper = join(dir, 'git-counting');
    writeFileSync(wrapper, `#!/bin/sh\necho "$1" >> '${calls}'\nexec git "$@"\n`);
    chmodSync(wrapper, 0o755);
    const { store, agentRoot } = await openStore({ gitBinary: wrapper });
    write(agentRoot, '.gitignore', '*.tmp\n');
    writeFileSync(calls, '');
    const paths = Array.from({ length: 300 }, (_, i) => `f${i}.${i % 2 ? 'tmp' : 'txt'}`);
    expect(unwrap(await store.ignoredPaths(paths)).size).toBe(150);
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual(['check-ignore']);
  });

  it('reports a git that fails as an error, not as "nothing ignored"', async () => {
    const { dir } = tempExecution();
    const wrapper = join(dir, 'git-broken-check');
    writeFileSync(
      wrapper,
      '#!/bin/sh\nif [ "$1" = check-ignore ]; then echo "fatal: index file corrupt" >&2; exit 128; fi\nexec git "$@"\n',
    );
    chmodSync(wrapper, 0o755);
    const { store } = await openStore({ gitBinary: wrapper });
    const answer = await store.ignoredPaths(['package-lock.json']);
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.message).toContain('index file corrupt');
    expect(unwrap(await store.ignoredPaths([])).size).toBe(0);
  });
});
