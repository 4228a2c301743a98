import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import type { Result } from '../../../core/result.ts';
import type { MiddlewareSpec } from '../../../plan/config/proxy-config.ts';
import { type Middleware, MiddlewareSchema } from '../types.ts';

/** What a factory default export is called with. */
export type MiddlewareFactoryContext = { logger: Logger };

export type LoadResult = Result<Middleware[], { code: 'PROXY_MIDDLEWARE_LOAD_FAILED'; message: string }>;

const SHAPE_HINT =
  'must default-export a middleware object ({ request?, response? } with async functions) or a factory returning one';

function failed(message: string): LoadResult {
  return { ok: false, error: { code: 'PROXY_MIDDLEWARE_LOAD_FAILED', message } };
}

/**
 * Imports each user middleware module (paths relative to the config file's folder) in order.
 * The loaded object is wrapped, not copied field by field, so its methods keep their `this`.
 */
export async function loadUserMiddleware(
  specs: readonly MiddlewareSpec[],
  configDir: string,
  context: MiddlewareFactoryContext,
): Promise<LoadResult> {
  const loaded: Middleware[] = [];
  for (const spec of specs) {
    const path = resolve(configDir, spec.module);
    let exported: unknown;
    try {
      const module: { default?: unknown } = await import(pathToFileURL(path).href);
      exported = module.default;
      if (typeof exported === 'function') exported = await exported(spec.options ?? {}, context);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      return failed(`Proxy middleware ${path} could not be loaded: ${reason}`);
    }
    const shape = MiddlewareSchema.safeParse(exported);
    if (!shape.success) return failed(`Proxy middleware ${path} ${SHAPE_HINT}.`);
    const { name, readOnly, request, response } = shape.data;
    const target = exported;
    loaded.push({
      name: name ?? basename(path),
      readOnly,
      request: request && ((req, ctx) => request.call(target, req, ctx)),
      response: response && ((res, ctx) => response.call(target, res, ctx)),
    });
  }
  return { ok: true, value: loaded };
}
