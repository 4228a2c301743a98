import { describe, expect, it } from 'vitest';
import { compose } from '../../../src/llm/proxy/compose.ts';
import type {
  ExchangeContext,
  Middleware,
  ProxyRequest,
  ProxyResponse,
} from '../../../src/llm/proxy/types.ts';

const request = (): ProxyRequest => ({ method: 'POST', url: '/x', headers: {} });
const context = (): ExchangeContext => ({ id: 1, rawBody: Buffer.alloc(0), request: request() });

function tagging(name: string, order: string[]): Middleware {
  return {
    name,
    request: async (req) => {
      order.push(`req:${name}`);
      return { ...req, headers: { ...req.headers, [name]: '1' } };
    },
    response: async (res) => {
      order.push(`res:${name}`);
      return { ...res, headers: { ...res.headers, [name]: '1' } };
    },
  };
}

describe('compose', () => {
  it('runs request and response handlers in registration order', async () => {
    const order: string[] = [];
    const pipeline = compose([tagging('a', order), { name: 'only-response' }, tagging('b', order)]);
    const req = await pipeline.request(request(), context());
    const res = await pipeline.response({ status: 200, headers: {} }, context());
    expect(order).toEqual(['req:a', 'req:b', 'res:a', 'res:b']);
    expect(req.ok && req.value.headers).toEqual({ a: '1', b: '1' });
    expect(res.ok && res.value.headers).toEqual({ a: '1', b: '1' });
  });

  it('keeps the object when a handler returns nothing', async () => {
    const pipeline = compose([
      {
        request: async (req) => {
          req.headers.edited = 'yes';
          return undefined;
        },
      },
    ]);
    const result = await pipeline.request(request(), context());
    expect(result.ok && result.value.headers.edited).toBe('yes');
  });

  it('stops at a throwing handler and names it', async () => {
    const order: string[] = [];
    const pipeline = compose([
      tagging('a', order),
      {
        name: 'broken',
        request: async () => {
          throw new Error('boom');
        },
      },
      tagging('c', order),
    ]);
    const result = await pipeline.request(request(), context());
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ middleware: 'broken', phase: 'request' });
      expect(String(result.error.cause)).toContain('boom');
    }
    expect(order).toEqual(['req:a']);
  });

  it('refuses a handler that returns a non-object, naming unnamed middleware by position', async () => {
    const bad = { response: async () => 'oops' } as unknown as Middleware;
    const result = await compose([{}, bad]).response(
      { status: 200, headers: {} } satisfies ProxyResponse,
      context(),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ middleware: 'middleware #2', phase: 'response' });
  });

  it('knows whether a request can change: only read-only request handlers mean no', () => {
    expect(compose([]).mayChangeRequest).toBe(false);
    expect(compose([{ readOnly: true, request: async (r) => r }]).mayChangeRequest).toBe(false);
    expect(compose([{ response: async (r) => r }]).mayChangeRequest).toBe(false);
    expect(
      compose([{ readOnly: true, request: async (r) => r }, { request: async (r) => r }]).mayChangeRequest,
    ).toBe(true);
  });

  it('answers at once when no handler returns a promise, and keeps the order across sync and async ones', async () => {
    const order: string[] = [];
    const sync = (name: string): Middleware => ({
      name,
      request: (req) => {
        order.push(name);
        return { ...req, headers: { ...req.headers, [name]: '1' } };
      },
    });
    const direct = compose([sync('a'), sync('b')]).request(request(), context());
    expect(direct).not.toBeInstanceOf(Promise);
    expect('ok' in direct && direct.ok && direct.value.headers).toEqual({ a: '1', b: '1' });

    order.length = 0;
    const mixed = compose([sync('a'), tagging('b', order), sync('c')]);
    const result = await mixed.request(request(), context());
    expect(order).toEqual(['a', 'req:b', 'c']);
    expect(result.ok && result.value.headers).toEqual({ a: '1', b: '1', c: '1' });

    const broken = compose([
      sync('a'),
      {
        name: 'sync-throw',
        request: () => {
          throw new Error('boom');
        },
      },
    ]);
    const failed = await broken.request(request(), context());
    expect(!failed.ok && failed.error).toMatchObject({ middleware: 'sync-throw', phase: 'request' });
  });
});
