import { describe, expect, it } from 'vitest';
import type { FileUpdate } from '../../../src/engine/file-events/ignored-batch.ts';
import { createIgnoredMarker } from '../../../src/engine/file-events/ignored-marker.ts';

const update = (path: string): FileUpdate => ({ path, filename: path, content: '', action: 'created' });

/** A check the test answers by hand, so what is in flight is known at every point. */
function manualCheck() {
  const asked: Array<{ paths: readonly string[]; answer: (ignored: string[] | Error) => void }> = [];
  const check = (paths: readonly string[]) =>
    new Promise<ReadonlySet<string>>((resolve, reject) => {
      asked.push({ paths, answer: (a) => (a instanceof Error ? reject(a) : resolve(new Set(a))) });
    });
  return { asked, check };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('marking ignored file changes: the shell', () => {
  it('publishes every change in order, ignored ones marked, with one check per batch', async () => {
    const { asked, check } = manualCheck();
    const published: FileUpdate[] = [];
    const failures: unknown[] = [];
    const marker = createIgnoredMarker({
      check,
      publish: async (event) => {
        published.push(event);
      },
      onCheckFailed: (error) => failures.push(error),
      onPublishFailed: (error) => failures.push(error),
    });
    marker.push(update('kept.txt'));
    await settled();
    marker.push(update('package-lock.json'));
    marker.push(update('other.txt'));
    expect(asked.map((a) => a.paths)).toEqual([['kept.txt']]);
    expect(published).toEqual([]);

    asked[0]?.answer([]);
    await settled();
    expect(asked.map((a) => a.paths)).toEqual([['kept.txt'], ['package-lock.json', 'other.txt']]);
    asked[1]?.answer(['package-lock.json']);
    await marker.drained();
    expect(published.map((e) => [e.path, e.ignored ?? false])).toEqual([
      ['kept.txt', false],
      ['package-lock.json', true],
      ['other.txt', false],
    ]);
    expect(failures).toEqual([]);
  });

  it('lets changes through unmarked when the check fails, and reports the failure once', async () => {
    const { asked, check } = manualCheck();
    const published: FileUpdate[] = [];
    const failures: unknown[] = [];
    const marker = createIgnoredMarker({
      check,
      publish: async (event) => {
        published.push(event);
      },
      onCheckFailed: (error) => failures.push(error),
      onPublishFailed: () => {},
    });
    marker.push(update('a.lock'));
    await settled();
    marker.push(update('b.lock'));
    asked[0]?.answer(new Error('git check-ignore failed'));
    await settled();
    asked[1]?.answer(new Error('git check-ignore failed'));
    await marker.drained();
    expect(published).toEqual([update('a.lock'), update('b.lock')]);
    expect(failures).toEqual([new Error('git check-ignore failed')]);
  });

  it('is drained at once when nothing was pushed, and a failing publish does not stop the next', async () => {
    const published: string[] = [];
    const failed: unknown[] = [];
    const marker = createIgnoredMarker({
      check: async () => new Set(),
      publish: async (event) => {
        if (event.path === 'bad') throw new Error('journal closed');
        published.push(event.path);
      },
      onCheckFailed: () => {},
      onPublishFailed: (error) => failed.push(error),
    });
    await marker.drained();
    marker.push(update('bad'));
    marker.push(update('good'));
    await marker.drained();
    await settled();
    expect(published).toEqual(['good']);
    expect(failed).toEqual([new Error('journal closed')]);
  });
});
