/**
 * Which recorded exchange answers a request at replay (issue 31). Pure apart from what it has handed
 * out. Each caller's exchanges are taken in their recorded order: a request gets the first one of its
 * caller not handed out yet whose method, path and fingerprint are its own. Agents send some requests
 * side by side (Claude Code's title and main turns), so an unused exchange further on may answer
 * before an earlier one. When none is left, one already handed out serves again: a codon that starts
 * over after a crash asks its first questions again.
 *
 * A sentinel is shown the agent's events in batches that depend on timing, which a replay does not
 * keep: its requests match by shape (model, system prompt, tools: fingerprint.ts `shapeOf`) in
 * recorded order, and once those run out the last one answers again.
 *
 * Anything else is a miss, named against the nearest recorded request.
 */
import { type Caller, callerKey, callerName } from './caller.ts';
import { type Canonical, fingerprintOf, firstDifference, shapeOf } from './fingerprint.ts';
import type { ExchangeLine } from './schema.ts';

export type Lookup = {
  caller?: Caller;
  method: string;
  path: string;
  fingerprint: string;
  request: Canonical;
};

export type MatchResult =
  | { kind: 'hit'; exchange: ExchangeLine; how: 'exact' | 'again' | 'shape' }
  | { kind: 'miss'; message: string; nearest?: ExchangeLine };

export type Matcher = {
  match(lookup: Lookup): MatchResult;
  /** Exchanges not handed out yet. */
  unused(): ExchangeLine[];
};

/** A recorded exchange, with its shape when a sentinel's (the only requests matched by shape). */
type Indexed = ExchangeLine & { shape?: string };

const sameRequest = (e: ExchangeLine, l: Lookup) =>
  e.method === l.method && e.path === l.path && e.fingerprint === l.fingerprint;

const shapeKey = (method: string, path: string, request: Canonical) =>
  fingerprintOf([method, path, shapeOf(request)]);

const label = (e: ExchangeLine) =>
  `exchange ${e.seq} (${callerName(e.caller)}, turn ${e.turn}${e.attempt && e.attempt > 1 ? `, attempt ${e.attempt}` : ''})`;

/** The sentence of a miss: the request, the nearest recorded one, and where they first differ. */
export function missMessage(lookup: Lookup, nearest: ExchangeLine | undefined): string {
  const what = `Replay: no recorded exchange of ${callerName(lookup.caller)} matches this request (${lookup.method} ${lookup.path})`;
  if (!nearest) return `${what}: the cassette holds no exchange of ${callerName(lookup.caller)}.`;
  if (nearest.method !== lookup.method || nearest.path !== lookup.path) {
    return `${what}. Nearest: ${label(nearest)}, a request to ${nearest.method} ${nearest.path}.`;
  }
  // A sentinel's conversation is not matched on: what differs is in the rest.
  const sentinel = lookup.caller?.kind === 'sentinel';
  const difference = sentinel
    ? firstDifference(shapeOf(nearest.request), shapeOf(lookup.request))
    : firstDifference(nearest.request, lookup.request);
  const where = difference
    ? `they first differ at ${difference.path}: recorded ${JSON.stringify(difference.recorded)}, now ${JSON.stringify(difference.now)}`
    : 'they differ only in what the fingerprint leaves out';
  return `${what}. Nearest: ${label(nearest)}; ${where}.`;
}

export function createMatcher(exchanges: readonly ExchangeLine[]): Matcher {
  const byCaller = new Map<string, Indexed[]>();
  for (const exchange of exchanges) {
    const key = callerKey(exchange.caller);
    const list = byCaller.get(key) ?? [];
    const sentinel = exchange.caller?.kind === 'sentinel';
    list.push(
      sentinel
        ? { ...exchange, shape: shapeKey(exchange.method, exchange.path, exchange.request) }
        : exchange,
    );
    byCaller.set(key, list);
  }
  const used = new Set<number>();
  const take = (exchange: Indexed, how: 'exact' | 'shape'): MatchResult => {
    used.add(exchange.seq);
    return { kind: 'hit', exchange, how };
  };
  return {
    match(lookup) {
      const own = byCaller.get(callerKey(lookup.caller)) ?? [];
      const fresh = own.find((e) => !used.has(e.seq) && sameRequest(e, lookup));
      if (fresh) return take(fresh, 'exact');
      const shape =
        lookup.caller?.kind === 'sentinel' ? shapeKey(lookup.method, lookup.path, lookup.request) : undefined;
      const next = shape ? own.find((e) => !used.has(e.seq) && e.shape === shape) : undefined;
      if (next) return take(next, 'shape');
      const again =
        own.findLast((e) => sameRequest(e, lookup)) ??
        (shape ? own.findLast((e) => e.shape === shape) : undefined);
      if (again) return { kind: 'hit', exchange: again, how: 'again' };
      const open = own.filter((e) => !used.has(e.seq));
      const nearest =
        open.find((e) => e.method === lookup.method && e.path === lookup.path) ?? open[0] ?? own.at(-1);
      return { kind: 'miss', message: missMessage(lookup, nearest), ...(nearest ? { nearest } : {}) };
    },
    unused: () => exchanges.filter((e) => !used.has(e.seq)),
  };
}
