import { describe, expect, it } from 'vitest';
import { runBatchView } from '../../../../src/clients/batch/view/run-batch-view.ts';
import { KEYS } from './helpers/render.ts';
import { everyState, summaryOf } from './helpers/summaries.ts';
import { FakeStdin, FakeStdout, summaryChannel, until } from './helpers/terminal.ts';

const ENTER_ALT_SCREEN = '\u001b[?1049h';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';

/** The table on a fake terminal, fed by a channel of summaries; its TUI opens are held until the test lets them go. */
function start(openTui: (jobId: string, url: string) => Promise<number | undefined>) {
  const stdout = new FakeStdout();
  const stdin = new FakeStdin();
  const channel = summaryChannel();
  let quits = 0;
  const done = runBatchView({
    summaries: channel.iterable,
    openTui,
    onQuit: () => {
      quits += 1;
    },
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    env: { NO_COLOR: '1' },
    size: { width: 100, height: 20 },
  });
  const type = async (...keys: string[]) => {
    for (const key of keys) {
      stdin.type(key);
      await new Promise((r) => setImmediate(r));
    }
  };
  return { stdout, stdin, channel, done, type, quits: () => quits };
}

/** A promise the test resolves: the person still in the job's TUI until then. */
function held<T>() {
  let release: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    release = r;
  });
  return { promise, release };
}

describe('runBatchView: the table, a job’s TUI in its place, and back', () => {
  it('Enter on a running job gives the terminal to its TUI, reads no key meanwhile, and comes back on it', async () => {
    const tui = held<number>();
    const calls: [string, string][] = [];
    const view = start((jobId, url) => {
      calls.push([jobId, url]);
      return tui.promise;
    });
    await view.channel.push(summaryOf(everyState(new Date())));
    await until('the table reads keys', () => view.stdin.listenerCount('readable') > 0);
    expect(view.stdout.chunks[0]).toBe(`${ENTER_ALT_SCREEN}\u001b[H`);

    await view.type('j', KEYS.enter);
    await until('the TUI opened', () => calls.length === 1);
    expect(calls).toEqual([['job-1', 'ws://127.0.0.1:40001']]);
    // The table is gone and the terminal restored before the TUI starts; no key goes to the table.
    expect(view.stdout.chunks.at(-1)).toBe(LEAVE_ALT_SCREEN);
    expect(view.stdin.type('q')).toBe(false);
    expect(view.quits()).toBe(0);

    // A summary while the TUI is open: the table comes back with it, the same job selected.
    const later = everyState(new Date()).map((j) =>
      j.id === 'job-3' ? { ...j, state: 'passed' as const } : j,
    );
    await view.channel.push(summaryOf(later));
    tui.release(0);
    await until('the table is back', () => view.stdin.listenerCount('readable') > 0);
    expect(view.stdout.chunks.join('').lastIndexOf(ENTER_ALT_SCREEN)).toBeGreaterThan(
      view.stdout.chunks.join('').lastIndexOf(LEAVE_ALT_SCREEN),
    );
    await view.type(KEYS.enter);
    await until('the TUI opened again', () => calls.length === 2);
    expect(calls[1]).toEqual(['job-1', 'ws://127.0.0.1:40001']);
    view.channel.end();
    // The batch ended with the TUI open: the view ends when the person leaves it.
    await new Promise((r) => setTimeout(r, 50));
    expect(view.stdin.listenerCount('readable')).toBe(0);
    tui.release(0);
    const last = await view.done;
    expect(last?.jobs.find((j) => j.id === 'job-3')?.state).toBe('passed');
    expect(view.stdout.chunks.at(-1)).toBe(LEAVE_ALT_SCREEN);
  });

  it('q and Ctrl-C ask the batch to stop; the table stays until the summaries end, then gives the terminal back', async () => {
    const view = start(async () => 0);
    await view.channel.push(summaryOf(everyState(new Date())));
    await until('the table reads keys', () => view.stdin.listenerCount('readable') > 0);
    await view.type('q');
    expect(view.quits()).toBe(1);
    await view.type('\u0003');
    expect(view.quits()).toBe(2);
    await view.channel.push(summaryOf(everyState(new Date()), { state: 'stopped' }));
    view.channel.end();
    const last = await view.done;
    expect(last?.state).toBe('stopped');
    expect(view.stdin.listenerCount('readable')).toBe(0);
    expect(view.stdout.chunks.at(-1)).toBe(LEAVE_ALT_SCREEN);
    expect(view.stdout.text()).toContain('stopping the batch: no new job starts, running ones are stopped');
  });

  it.each([
    [
      'could not attach',
      async () => 1,
      'the TUI of job job-1 ended with exit code 1 (did the job just end?)',
    ],
    [
      'could not start',
      async (): Promise<number> => {
        throw new Error('spawn ENOENT');
      },
      'could not open the TUI of job job-1: spawn ENOENT',
    ],
  ])('a TUI that %s is told in the status line when the table comes back', async (_what, openTui, told) => {
    let opened = 0;
    const view = start(() => {
      opened += 1;
      return openTui();
    });
    await view.channel.push(summaryOf(everyState(new Date())));
    await until('the table reads keys', () => view.stdin.listenerCount('readable') > 0);
    await view.type('j', KEYS.enter);
    await until('the table is back', () => opened === 1 && view.stdin.listenerCount('readable') > 0);
    view.channel.end();
    await view.done;
    // The last frame drawn (the one Ink leaves at unmount) says it.
    expect(view.stdout.text()).toContain(told);
  });

  it('ends when its signal aborts, and throws what a failing source threw, the terminal given back each time', async () => {
    const controller = new AbortController();
    const stdout = new FakeStdout();
    const stdin = new FakeStdin();
    const channel = summaryChannel();
    const done = runBatchView({
      summaries: channel.iterable,
      onQuit: () => {},
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      signal: controller.signal,
      size: { width: 80, height: 10 },
    });
    await channel.push(summaryOf(everyState(new Date())));
    await until('the table reads keys', () => stdin.listenerCount('readable') > 0);
    controller.abort();
    expect((await done)?.name).toBe('demo');
    expect(stdout.chunks.at(-1)).toBe(LEAVE_ALT_SCREEN);

    const failing = new FakeStdout();
    const broken: AsyncIterable<never> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('summary.json unreadable')) }),
    };
    await expect(
      runBatchView({
        summaries: broken,
        onQuit: () => {},
        stdout: failing as unknown as NodeJS.WriteStream,
        stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
      }),
    ).rejects.toThrow('summary.json unreadable');
    expect(failing.chunks.at(-1)).toBe(LEAVE_ALT_SCREEN);
  });

  it('takes a subscribe function as well as an iterable', async () => {
    const stdout = new FakeStdout();
    const stdin = new FakeStdin();
    let listener: { next(s: ReturnType<typeof summaryOf>): void; end(): void } | undefined;
    let unsubscribed = false;
    const done = runBatchView({
      summaries: (l) => {
        listener = l;
        return () => {
          unsubscribed = true;
        };
      },
      onQuit: () => {},
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      size: { width: 80, height: 10 },
    });
    listener?.next(summaryOf(everyState(new Date()), { name: 'subscribed' }));
    listener?.end();
    expect((await done)?.name).toBe('subscribed');
    expect(unsubscribed).toBe(true);
  });
});
