import { describe, expect, it } from 'vitest';
import {
  answered,
  arrive,
  type FileUpdate,
  INITIAL_MARKER,
  type MarkerState,
  type Step,
} from '../../../src/engine/file-events/ignored-batch.ts';

const update = (path: string, action: FileUpdate['action'] = 'modified'): FileUpdate => ({
  path,
  filename: path.slice(path.lastIndexOf('/') + 1),
  content: '',
  action,
});

/** Runs a script of arrivals and answers, collecting what is published, checked and logged. */
function play(script: Array<FileUpdate | ReadonlySet<string> | 'fail'>) {
  let state: MarkerState = INITIAL_MARKER;
  const emitted: FileUpdate[] = [];
  const checks: Array<readonly string[]> = [];
  let logged = 0;
  const take = (step: Step) => {
    state = step.state;
    emitted.push(...step.emit);
    if (step.check) checks.push(step.check);
    if (step.logFailure) logged++;
  };
  for (const item of script) {
    if (item === 'fail') take(answered(state, { ok: false }));
    else if (item instanceof Set) take(answered(state, { ok: true, ignored: item }));
    else take(arrive(state, item as FileUpdate));
  }
  return { state, emitted, checks, logged };
}

describe('marking ignored file changes: the batching core', () => {
  it('checks the first change at once and the ones that came meanwhile together, in their order', () => {
    const run = play([
      update('kept.txt', 'created'),
      update('package-lock.json', 'created'),
      update('src/a.ts'),
      update('package-lock.json'),
      new Set(['kept.txt.bak']),
    ]);
    expect(run.checks).toEqual([['kept.txt'], ['package-lock.json', 'src/a.ts']]);
    // The second batch is still being checked: nothing of it is out yet.
    expect(run.emitted.map((e) => e.path)).toEqual(['kept.txt']);
    expect(run.emitted[0]).not.toHaveProperty('ignored');

    const done = play([
      update('kept.txt', 'created'),
      update('package-lock.json', 'created'),
      update('src/a.ts'),
      update('package-lock.json', 'deleted'),
      new Set<string>(),
      new Set(['package-lock.json']),
    ]);
    expect(done.emitted.map((e) => [e.path, e.action, e.ignored ?? false])).toEqual([
      ['kept.txt', 'created', false],
      ['package-lock.json', 'created', true],
      ['src/a.ts', 'modified', false],
      ['package-lock.json', 'deleted', true],
    ]);
    expect(done.state).toEqual({ phase: 'idle', failing: false });
  });

  it('lets a batch whose check failed through unmarked, and says so once per spell of failures', () => {
    const run = play([
      update('a.lock'),
      update('b.lock'),
      'fail',
      update('c.lock'),
      'fail',
      'fail',
      update('d.lock'),
      new Set(['d.lock']),
      update('e.lock'),
      'fail',
    ]);
    expect(run.emitted.map((e) => [e.path, e.ignored ?? false])).toEqual([
      ['a.lock', false],
      ['b.lock', false],
      ['c.lock', false],
      ['d.lock', true],
      ['e.lock', false],
    ]);
    expect(run.logged).toBe(2);
    expect(run.state.phase).toBe('idle');
  });

  it('ignores an answer when no check runs', () => {
    const step = answered(INITIAL_MARKER, { ok: true, ignored: new Set(['x']) });
    expect(step).toEqual({ state: INITIAL_MARKER, emit: [] });
  });
});
