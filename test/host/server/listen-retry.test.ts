import { describe, expect, it } from 'vitest';
import { isPortTaken, LISTEN_ATTEMPTS, listenWithRetry } from '../../../src/host/server/listen-retry.ts';

/**
 * A made-up machine: `taken` ports are held by another process; an attempt listens on the main port
 * (a dynamic one from `offered`) and then on main + 1, as the server does with the proxy.
 */
function machine(taken: number[], offered: number[]) {
  const log: string[] = [];
  const held = new Set(taken);
  let next = 0;
  const bind = (port: number) => {
    if (held.has(port)) throw Object.assign(new Error(`port ${port} in use`), { code: 'EADDRINUSE' });
    held.add(port);
  };
  return {
    log,
    attempt: async (asked: number) => {
      const main = asked === 0 ? offered[next++]! : asked;
      bind(main);
      log.push(`main ${main}`);
      try {
        bind(main + 1);
      } catch (cause) {
        throw Object.assign(new Error(`proxy port ${main + 1} in use`), { code: 'PROXY_PORT_IN_USE', cause });
      }
      return main;
    },
    undo: async (_error: unknown, n: number) => {
      log.push(`undo ${n}`);
      held.clear();
      for (const port of taken) held.add(port);
    },
  };
}

describe('listenWithRetry', () => {
  it('with a dynamic port, listens again on another pair when main + 1 is taken', async () => {
    const m = machine([5001, 6001], [5000, 6000, 7000]);
    expect(await listenWithRetry({ port: 0, ...m })).toBe(7000);
    expect(m.log).toEqual(['main 5000', 'undo 1', 'main 6000', 'undo 2', 'main 7000']);
  });

  it('with a port the user chose, the first failure stands', async () => {
    const m = machine([5001], [6000]);
    await expect(listenWithRetry({ port: 5000, ...m })).rejects.toMatchObject({ code: 'PROXY_PORT_IN_USE' });
    expect(m.log).toEqual(['main 5000']);
  });

  it('gives up after a bounded number of attempts with the last failure', async () => {
    const offered = Array.from({ length: 20 }, (_, i) => 5000 + 10 * i);
    const m = machine(
      offered.map((p) => p + 1),
      offered,
    );
    await expect(listenWithRetry({ port: 0, ...m })).rejects.toThrow(
      `proxy port ${offered[LISTEN_ATTEMPTS - 1]! + 1} in use`,
    );
    expect(m.log.filter((l) => l.startsWith('main'))).toHaveLength(LISTEN_ATTEMPTS);
  });

  it('retries a chosen dynamic main port that is taken, and nothing but a taken port', async () => {
    const m = machine([5000], [6000]);
    // The injected chooser offers 5000 first (taken), then 0: the OS's choice.
    expect(await listenWithRetry({ port: 0, dynamicPort: (n) => (n === 1 ? 5000 : 0), ...m })).toBe(6000);
    let calls = 0;
    const other = listenWithRetry({
      port: 0,
      attempt: async () => {
        calls += 1;
        throw Object.assign(new Error('no'), { code: 'EACCES' });
      },
      undo: async () => {},
    });
    await expect(other).rejects.toThrow('no');
    expect(calls).toBe(1);
  });

  it.each([
    [{ code: 'EADDRINUSE' }, true],
    [{ code: 'PROXY_PORT_IN_USE' }, true],
    [{ code: 'PROXY_LISTEN_FAILED' }, false],
    [new Error('x'), false],
    [null, false],
  ])('isPortTaken(%o) is %s', (error, expected) => {
    expect(isPortTaken(error)).toBe(expected);
  });
});
