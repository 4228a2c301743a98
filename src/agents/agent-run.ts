import type { AgentRun } from './agent-adapter.ts';

/**
 * A run made of another: `own`'s members, and for every other member `inner`'s, read at each use (a
 * getter such as `inTurn` stays live; a method is called on `inner`). So a wrapper lists only what it
 * changes, and a member AgentRun gains later is never dropped by one. `inner` may be a function giving
 * the run of the moment (resumeChain: the turn that runs now). For reading members, not for spreading.
 */
export function wrapRun(inner: AgentRun | (() => AgentRun), own: Partial<AgentRun>): AgentRun {
  const current = typeof inner === 'function' ? inner : () => inner;
  // Complete: what `own` lacks, `get` finds on the inner run.
  return new Proxy(own as AgentRun, {
    get(target, key) {
      if (key in target) return Reflect.get(target, key);
      const run = current();
      const value: unknown = Reflect.get(run, key, run);
      return typeof value === 'function' ? value.bind(run) : value;
    },
  });
}
