import { redactUrl } from '../credentials/log-safe.ts';

/** The provider base URL, taken apart once so no request parses it again. */
export type Target = {
  protocol: 'http:' | 'https:';
  /** For the socket: an IPv6 literal without brackets. */
  hostname: string;
  port: number;
  /** The Host header value: hostname and, when not the default, port. */
  host: string;
  /** The base URL's path without its trailing slash ('' for none): forwarded paths go under it. */
  pathPrefix: string;
};

export type TargetResult = { ok: true; value: Target } | { ok: false; message: string };

export function parseTarget(baseUrl: string): TargetResult {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { ok: false, message: `not a URL: ${JSON.stringify(redactUrl(baseUrl))}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `must use http or https, got ${url.protocol.slice(0, -1)}` };
  }
  if (url.search !== '' || url.hash !== '') {
    return { ok: false, message: 'must not carry a query or fragment' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, message: 'must not carry credentials' };
  }
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const defaultPort = url.protocol === 'https:' ? 443 : 80;
  return {
    ok: true,
    value: {
      protocol: url.protocol,
      hostname,
      port: url.port === '' ? defaultPort : Number(url.port),
      host: url.host,
      pathPrefix: url.pathname.replace(/\/+$/, ''),
    },
  };
}

/** The path and query to request from the target for an agent's request-target. */
export function targetPath(target: Target, requestUrl: string): string {
  if (requestUrl.startsWith('/')) return target.pathPrefix + requestUrl;
  // Absolute form (`GET http://host/path`), sent by clients that treat this as a forward proxy.
  try {
    const url = new URL(requestUrl);
    return target.pathPrefix + url.pathname + url.search;
  } catch {
    return `${target.pathPrefix}/`;
  }
}
