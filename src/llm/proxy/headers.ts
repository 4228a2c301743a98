import type { IncomingHttpHeaders } from 'node:http';
import type { ProxyHeaders } from './types.ts';

// Hop-by-hop headers (RFC 9110 section 7.6.1) describe one connection, so a proxy never forwards them;
// Node writes its own framing and keep-alive headers on each side.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function isHopByHop(name: string): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith('proxy-');
}

/** Extra hop-by-hop names an endpoint listed in its Connection header (besides the usual options). */
function connectionListed(headers: ProxyHeaders): Set<string> | undefined {
  const value = headers.connection;
  if (value === undefined) return undefined;
  let listed: Set<string> | undefined;
  for (const token of value.split(',')) {
    const name = token.trim().toLowerCase();
    if (name === '' || name === 'close' || name === 'keep-alive') continue;
    listed ??= new Set();
    listed.add(name);
  }
  return listed;
}

/** Node's parsed headers as the string map middleware sees (only set-cookie can be an array). */
export function toHeaderMap(headers: IncomingHttpHeaders): ProxyHeaders {
  const map: ProxyHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === 'string') map[name] = value;
    else if (value !== undefined) map[name] = value.join(', ');
  }
  return map;
}

/** Whether the agent framed a body (so the forwarded request carries a Content-Length too). */
export function hasBodyFraming(headers: ProxyHeaders): boolean {
  return headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined;
}

// Dropped from forwarded requests besides hop-by-hop: Host and Content-Length are rewritten, and an
// Expect was already answered by this proxy (Node sends 100 Continue) so the target must not wait for it.
const REWRITTEN_ON_REQUEST = new Set(['host', 'content-length', 'expect']);

/**
 * Headers for the forwarded request, as a flat [name, value, ...] list (Node's cheapest form):
 * hop-by-hop removed, Host set for the target, Content-Length set to the body actually sent.
 */
export function upstreamRequestHeaders(
  headers: ProxyHeaders,
  targetHost: string,
  bodyLength: number | undefined,
): string[] {
  const listed = connectionListed(headers);
  const flat: string[] = ['host', targetHost];
  for (const name in headers) {
    if (isHopByHop(name) || REWRITTEN_ON_REQUEST.has(name) || listed?.has(name)) continue;
    flat.push(name, headers[name]!);
  }
  if (bodyLength !== undefined) flat.push('content-length', String(bodyLength));
  return flat;
}

/**
 * Headers for the answer to the agent, as a flat list. `length` keeps the target's Content-Length
 * (its bytes are relayed), drops it (a new stream: sent chunked) or sets it (new bytes). The
 * target's set-cookie list is restored when middleware left it alone.
 */
export function clientResponseHeaders(
  headers: ProxyHeaders,
  length: 'keep' | 'drop' | number,
  upstreamSetCookie: readonly string[] | undefined,
): string[] {
  const listed = connectionListed(headers);
  const flat: string[] = [];
  for (const name in headers) {
    if (isHopByHop(name) || listed?.has(name)) continue;
    if (length !== 'keep' && name === 'content-length') continue;
    const value = headers[name]!;
    if (name === 'set-cookie' && upstreamSetCookie && value === upstreamSetCookie.join(', ')) {
      for (const cookie of upstreamSetCookie) flat.push(name, cookie);
      continue;
    }
    flat.push(name, value);
  }
  if (typeof length === 'number') flat.push('content-length', String(length));
  return flat;
}
