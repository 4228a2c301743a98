import { describe, expect, it } from 'vitest';
import { checkpointOf, openStore, storeGit, unwrap, write } from './helpers.ts';

/**
 * Recovery's use of the store: the checkpoints at the end of a run's branch that the engine's state
 * never recorded move onto a side ref, and the branch ends at the last recorded one again.
 */
describe('CheckpointStore.setAside', () => {
  it('moves the branch back and keeps the old tip on refs/orphans/, reachable', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('run-1'));
    write(agentRoot, 'one.txt', '1\n');
    const one = unwrap(await checkpointOf(store, 'run-1', 'one'));
    write(agentRoot, 'two.txt', '2\n');
    const two = unwrap(await checkpointOf(store, 'run-1', 'two'));

    const side = unwrap(await store.setAside('run-1', one.sha));
    expect(side).toBe(`refs/orphans/run/run-1/${two.sha}`);
    expect(unwrap(await store.list('run-1')).map((c) => c.sha)).not.toContain(two.sha);
    expect(unwrap(await store.list('run-1')).at(-1)?.sha).toBe(one.sha);
    expect(storeGit(store, ['rev-parse', side ?? 'none']).trim()).toBe(two.sha);
    // A full SHA still names it (for inspection), and git gc keeps it.
    unwrap(await store.compact());
    expect(unwrap(await store.resolve(two.sha)).codonId).toBe('two');
    // The next checkpoint of the run grows from the kept tip.
    write(agentRoot, 'three.txt', '3\n');
    const three = unwrap(await checkpointOf(store, 'run-1', 'three'));
    expect(three.parentSha).toBe(one.sha);
  });

  it('does nothing when the branch already ends there, or the run has no branch', async () => {
    const { store, agentRoot } = await openStore();
    unwrap(await store.startRun('run-1'));
    write(agentRoot, 'one.txt', '1\n');
    const one = unwrap(await checkpointOf(store, 'run-1', 'one'));
    expect(unwrap(await store.setAside('run-1', one.sha))).toBeNull();
    expect(unwrap(await store.setAside('run-2', one.sha))).toBeNull();
    expect(storeGit(store, ['for-each-ref', 'refs/orphans/']).trim()).toBe('');
  });

  it('is idempotent: a recovery killed after it and run again finds the same state', async () => {
    const { store, agentRoot } = await openStore();
    const initial = unwrap(await store.startRun('run-1'));
    write(agentRoot, 'one.txt', '1\n');
    unwrap(await checkpointOf(store, 'run-1', 'one'));
    const side = unwrap(await store.setAside('run-1', initial.sha));
    expect(unwrap(await store.setAside('run-1', initial.sha))).toBeNull();
    expect(storeGit(store, ['for-each-ref', '--format=%(refname)', 'refs/orphans/']).trim()).toBe(
      side ?? 'none',
    );
  });
});
