import type { Result } from '../../core/result.ts';
import type { ExchangeContext, Middleware, ProxyRequest, ProxyResponse } from './types.ts';

export type MiddlewareFailure = { middleware: string; phase: 'request' | 'response'; cause: unknown };
export type Step<T> = Result<T, MiddlewareFailure>;

export type Pipeline = {
  /** False when every request handler is read-only: the agent's bytes can then be forwarded as they are. */
  readonly mayChangeRequest: boolean;
  /** A Step at once when no handler returned a promise (LoggingMiddleware's do not), else a promise of it. */
  request(request: ProxyRequest, context: ExchangeContext): Step<ProxyRequest> | Promise<Step<ProxyRequest>>;
  response(
    response: ProxyResponse,
    context: ExchangeContext,
  ): Step<ProxyResponse> | Promise<Step<ProxyResponse>>;
};

/** How logs and errors name a middleware: its own name, else its place in the list. */
export function middlewareName(middleware: Middleware, index: number): string {
  return middleware.name ?? `middleware #${index + 1}`;
}

type Named = { m: Middleware; name: string };
type Call<T> = (m: Middleware, current: T) => Promise<T | undefined> | T | undefined;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/**
 * Runs handlers from `from` on, in order. Synchronous while handlers answer synchronously: an exchange
 * whose middleware all do (the proxy's own) costs no promise and no microtask turn (issue 16); from the
 * first handler that returns a promise on, the rest runs after it settles.
 */
function run<T extends object>(
  phase: 'request' | 'response',
  steps: readonly Named[],
  value: T,
  call: Call<T>,
  from = 0,
): Step<T> | Promise<Step<T>> {
  let current = value;
  for (let i = from; i < steps.length; i++) {
    const { m, name } = steps[i]!;
    let next: Promise<T | undefined> | T | undefined;
    try {
      next = call(m, current);
    } catch (cause) {
      return { ok: false, error: { middleware: name, phase, cause } };
    }
    if (isThenable(next)) return settle(phase, steps, current, call, i, next);
    if (next === undefined) continue;
    const refused = refusal(next, name, phase);
    if (refused) return refused;
    current = next;
  }
  return { ok: true, value: current };
}

async function settle<T extends object>(
  phase: 'request' | 'response',
  steps: readonly Named[],
  current: T,
  call: Call<T>,
  at: number,
  pending: PromiseLike<T | undefined>,
): Promise<Step<T>> {
  const { name } = steps[at]!;
  let next: T | undefined;
  try {
    next = await pending;
  } catch (cause) {
    return { ok: false, error: { middleware: name, phase, cause } };
  }
  if (next !== undefined) {
    const refused = refusal(next, name, phase);
    if (refused) return refused;
  }
  return run(phase, steps, next ?? current, call, at + 1);
}

/** Plain-JavaScript middleware can return anything; a non-object would break the forwarding later. */
function refusal(next: unknown, name: string, phase: 'request' | 'response'): Step<never> | undefined {
  if (typeof next === 'object' && next !== null) return undefined;
  const cause = new TypeError(`returned ${typeof next} instead of a ${phase} object`);
  return { ok: false, error: { middleware: name, phase, cause } };
}

/** Runs request handlers, then (later) response handlers, each in registration order. */
export function compose(middleware: readonly Middleware[]): Pipeline {
  const named: Named[] = middleware.map((m, index) => ({ m, name: middlewareName(m, index) }));
  const requestSide = named.filter(({ m }) => m.request);
  const responseSide = named.filter(({ m }) => m.response);

  return {
    mayChangeRequest: requestSide.some(({ m }) => !m.readOnly),
    request: (request, context) =>
      run('request', requestSide, request, (m, current) => m.request!(current, context)),
    response: (response, context) =>
      run('response', responseSide, response, (m, current) => m.response!(current, context)),
  };
}
