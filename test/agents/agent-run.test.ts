import { describe, expect, it, vi } from 'vitest';
import type { AgentRun } from '../../src/agents/agent-adapter.ts';
import { wrapRun } from '../../src/agents/agent-run.ts';
import type { StreamLine } from '../../src/agents/stream-line.ts';

/**
 * A run with every member of AgentRun (Required: a member added to AgentRun fails to compile here until
 * it is added), each one telling apart: methods record their calls and `this`, getters read live state.
 */
function fakeRun(pid: number) {
  const state = {
    inTurn: false,
    startFailure: undefined as string | undefined,
    backlog: { count: 0, bytes: 0 },
  };
  const calls: Array<{ member: string; args: unknown[]; self: unknown }> = [];
  const method = <R>(member: string, value: R) =>
    function (this: unknown, ...args: unknown[]): R {
      calls.push({ member, args, self: this });
      return value;
    };
  const run: Required<AgentRun> = {
    pid,
    lines: (async function* (): AsyncGenerator<StreamLine> {})(),
    onStderr: method('onStderr', undefined),
    onNotice: method('onNotice', undefined),
    exited: Promise.resolve({ type: 'success' }),
    get startFailure() {
      return state.startFailure;
    },
    stop: method('stop', Promise.resolve()),
    send: method('send', true),
    get inTurn() {
      return state.inTurn;
    },
    get backlog() {
      return state.backlog;
    },
  };
  return { run, state, calls };
}

describe('wrapRun', () => {
  it('forwards every member of AgentRun it does not override, methods called on the inner run', () => {
    const inner = fakeRun(7);
    const wrapped = wrapRun(inner.run, {});
    for (const member of Object.keys(inner.run) as Array<keyof AgentRun>) {
      const value = inner.run[member];
      if (typeof value !== 'function') {
        expect(wrapped[member], member).toBe(value);
        continue;
      }
      const returned = (wrapped[member] as (...args: unknown[]) => unknown)(`to ${member}`);
      expect(returned, member).toBe((value as () => unknown).call(inner.run));
      expect(inner.calls.find((c) => c.member === member && c.args[0] === `to ${member}`)).toEqual({
        member,
        args: [`to ${member}`],
        self: inner.run,
      });
    }
  });

  it('reads getters at each use', () => {
    const inner = fakeRun(7);
    const wrapped = wrapRun(inner.run, {});
    expect([wrapped.inTurn, wrapped.startFailure]).toEqual([false, undefined]);
    inner.state.inTurn = true;
    inner.state.startFailure = 'EMFILE';
    expect([wrapped.inTurn, wrapped.startFailure]).toEqual([true, 'EMFILE']);
  });

  it('overrides only the members it is given', () => {
    const inner = fakeRun(7);
    const send = vi.fn(() => false);
    const wrapped = wrapRun(inner.run, { send, inTurn: true });
    expect(wrapped.send('hello')).toBe(false);
    expect(send).toHaveBeenCalledWith('hello');
    expect(inner.calls.filter((c) => c.member === 'send')).toEqual([]);
    expect(wrapped.inTurn).toBe(true);
    expect(wrapped.pid).toBe(7);
  });

  it('given a function, forwards to the run it gives at each use', () => {
    const [one, two] = [fakeRun(1), fakeRun(2)];
    let current = one;
    const wrapped = wrapRun(() => current.run, {});
    expect(wrapped.pid).toBe(1);
    current = two;
    expect(wrapped.pid).toBe(2);
    void wrapped.stop(500);
    expect(two.calls).toEqual([{ member: 'stop', args: [500], self: two.run }]);
    expect(one.calls).toEqual([]);
  });
});
