import type { ExchangeContext, Middleware, ProxyRequest, ProxyResponse } from './types.ts';

export type MiddlewareFailure = { middleware: string; phase: 'request' | 'response'; cause: unknown };
export type Step<T> = { ok: true; value: T } | { ok: false; error: MiddlewareFailure };

export type Pipeline = {
  /** False when every request handler is read-only: the agent's bytes can then be forwarded as they are. */
  readonly mayChangeRequest: boolean;
  request(request: ProxyRequest, context: ExchangeContext): Promise<Step<ProxyRequest>>;
  response(response: ProxyResponse, context: ExchangeContext): Promise<Step<ProxyResponse>>;
};

/** How logs and errors name a middleware: its own name, else its place in the list. */
export function middlewareName(middleware: Middleware, index: number): string {
  return middleware.name ?? `middleware #${index + 1}`;
}

/** Runs request handlers, then (later) response handlers, each in registration order. */
export function compose(middleware: readonly Middleware[]): Pipeline {
  const named = middleware.map((m, index) => ({ m, name: middlewareName(m, index) }));
  const requestSide = named.filter(({ m }) => m.request);
  const responseSide = named.filter(({ m }) => m.response);

  async function run<T extends object>(
    phase: 'request' | 'response',
    steps: typeof named,
    value: T,
    call: (m: Middleware, current: T) => Promise<T | undefined> | T | undefined,
  ): Promise<Step<T>> {
    let current = value;
    for (const { m, name } of steps) {
      let next: T | undefined;
      try {
        next = await call(m, current);
      } catch (cause) {
        return { ok: false, error: { middleware: name, phase, cause } };
      }
      if (next === undefined) continue;
      // Plain-JavaScript middleware can return anything; a non-object would break the forwarding later.
      if (typeof next !== 'object' || next === null) {
        const cause = new TypeError(`returned ${typeof next} instead of a ${phase} object`);
        return { ok: false, error: { middleware: name, phase, cause } };
      }
      current = next;
    }
    return { ok: true, value: current };
  }

  return {
    mayChangeRequest: requestSide.some(({ m }) => !m.readOnly),
    request: (request, context) =>
      run('request', requestSide, request, (m, current) => m.request!(current, context)),
    response: (response, context) =>
      run('response', responseSide, response, (m, current) => m.response!(current, context)),
  };
}
