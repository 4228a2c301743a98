/**
 * Who made an LLM request, as the proxy learns it from the request path (issue 31): a codon's agent
 * or a sentinel. With recording or replay on, each agent's and sentinel's base URL carries
 * `/c/codon.<id>` or `/c/sentinel.<id>` after the proxy's credential and before a route's `/p/<n>`;
 * the proxy takes it off before anything else reads the path. Pure.
 */
import { z } from 'zod';

export const CallerSchema = z.object({
  kind: z.enum(['codon', 'sentinel']),
  id: z.string().min(1),
});
export type Caller = z.infer<typeof CallerSchema>;

/** A plan id (src/plan/primitives.ts ID_PATTERN): safe in a path as it is. */
const CALLER_PATH = /^\/c\/(codon|sentinel)\.([A-Za-z0-9][A-Za-z0-9._-]*)(?=[/?]|$)(.*)$/;

/** The path prefix of a caller's base URL. */
export const callerPrefix = (caller: Caller): string => `/c/${caller.kind}.${caller.id}`;

/** The caller a request-target names and the target without it; the target as it is when it names none. */
export function takeCaller(url: string): { caller?: Caller; url: string } {
  const found = CALLER_PATH.exec(url);
  if (!found) return { url };
  const rest = found[3] ?? '';
  return {
    caller: { kind: found[1] as Caller['kind'], id: found[2] ?? '' },
    url: rest.startsWith('/') ? rest : `/${rest}`,
  };
}

/** How messages name a caller: `codon build`, `sentinel watcher`. */
export const callerName = (caller: Caller | undefined): string =>
  caller ? `${caller.kind} ${caller.id}` : 'a caller the proxy could not tell';

/** A map key for a caller. */
export const callerKey = (caller: Caller | undefined): string =>
  caller ? `${caller.kind}.${caller.id}` : '-';
