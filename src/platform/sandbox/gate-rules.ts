/**
 * What the network gate does with each request of a sandboxed agent (docs/agents.md#the-sandbox):
 * the agent's LLM route, under its base path only; hosts of `sandbox.network.allow`; nothing else.
 * Pure: the gate (network-gate.ts) carries the verdicts out.
 */
import { isLoopbackHost } from '../http/loopback.ts';
import type { Target } from '../http/target.ts';
import { formatHostPort, type HostPort, hostAllowed, parseHostPort } from './host-match.ts';
import type { SandboxDenial } from './launch.ts';

export type GateVerdict =
  /** To the LLM route (its host and scheme), the request-target as asked. */
  | { kind: 'route'; path: string }
  /** To an allowed host, as a forward proxy: `protocol` of the absolute-form URL. */
  | { kind: 'forward'; protocol: 'http:' | 'https:'; to: HostPort; path: string }
  /** A CONNECT tunnel to an allowed host (or an https route's own host). */
  | { kind: 'tunnel'; to: HostPort }
  /**
   * A CONNECT to a plain-http route (what Node's and undici's proxy agents send for every URL): the
   * gate opens the tunnel itself and reads the HTTP inside it, so each request in it meets the
   * route's path rules as a plain one would.
   */
  | { kind: 'inner' }
  | { kind: 'deny'; denial: SandboxDenial };

export const NOT_ALLOWED = 'not in sandbox.network.allow';
export const OTHER_ROUTE = 'another route of the LLM proxy';
export const OFF_ROUTE = "outside the LLM route's base path";

/** The start of another route of the LLM proxy: `/p/<n>` or `/t/<credential>` (src/llm/proxy). */
const PROXY_ROUTE = /^\/(p\/\d|t\/)/;

const routeHostPort = (route: Target): HostPort => ({ host: route.hostname.toLowerCase(), port: route.port });

/** Whether `to` is the route's own host and port (any loopback name for a loopback route). */
function isRoute(route: Target, to: HostPort): boolean {
  const own = routeHostPort(route);
  if (to.port !== own.port) return false;
  return to.host === own.host || (isLoopbackHost(to.host) && isLoopbackHost(own.host));
}

function decodedOnce(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Why `path` (without its query) may not go to the route, or undefined when it may: it must lie
 * under the route's base path, hold no dot segment or backslash (an upstream that normalizes would
 * climb out), and not go on to another route of the proxy.
 */
export function routePathProblem(prefix: string, path: string): string | undefined {
  const decoded = decodedOnce(path);
  if (decoded.includes('\\') || decoded.split('/').some((s) => s === '.' || s === '..')) return OFF_ROUTE;
  if (/%2f/i.test(path)) return OFF_ROUTE;
  if (prefix !== '' && path !== prefix && !path.startsWith(`${prefix}/`)) return OFF_ROUTE;
  if (PROXY_ROUTE.test(path.slice(prefix.length))) return OTHER_ROUTE;
  return undefined;
}

function deny(
  kind: SandboxDenial['kind'],
  to: HostPort | string,
  reason: string,
  method?: string,
  path?: string,
) {
  const target = typeof to === 'string' ? to : formatHostPort(to);
  const denial: SandboxDenial = { kind, target, reason };
  if (method !== undefined) denial.method = method;
  if (path !== undefined) denial.path = path;
  return { kind: 'deny', denial } as const;
}

/** A plain HTTP request: origin-form (`/path`, to the route) or absolute-form (`http://host/path`). */
export function decideRequest(
  route: Target,
  allow: readonly string[],
  request: { method: string; url: string },
): GateVerdict {
  const { method, url } = request;
  if (url.startsWith('/')) {
    const path = url.split('?')[0]!;
    const problem = routePathProblem(route.pathPrefix, path);
    return problem
      ? deny('request', routeHostPort(route), problem, method, path)
      : { kind: 'route', path: url };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return deny('request', routeHostPort(route), 'not a request-target', method, url.slice(0, 200));
  }
  const protocol =
    parsed.protocol === 'https:' ? 'https:' : parsed.protocol === 'http:' ? 'http:' : undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const to: HostPort = { host, port: parsed.port ? Number(parsed.port) : protocol === 'https:' ? 443 : 80 };
  const path = parsed.pathname;
  if (!protocol) return deny('request', to, `${parsed.protocol} is not proxied`, method, path);
  if (isRoute(route, to)) {
    const problem = routePathProblem(route.pathPrefix, path);
    return problem
      ? deny('request', to, problem, method, path)
      : { kind: 'route', path: path + parsed.search };
  }
  if (!hostAllowed(allow, to)) return deny('request', to, NOT_ALLOWED, method, path);
  return { kind: 'forward', protocol, to, path: path + parsed.search };
}

/** A CONNECT tunnel to `target` (`host:port`). */
export function decideConnect(route: Target, allow: readonly string[], target: string): GateVerdict {
  const to = parseHostPort(target);
  if (!to) return deny('connect', target.slice(0, 200), 'not a host:port');
  if (isRoute(route, to)) return route.protocol === 'https:' ? { kind: 'tunnel', to } : { kind: 'inner' };
  if (!hostAllowed(allow, to)) return deny('connect', to, NOT_ALLOWED);
  return { kind: 'tunnel', to };
}
