import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type ClientMode, DASHBOARD_PROTOCOL, TICKET_PROTOCOL_PREFIX } from '../../core/protocol/index.ts';

/**
 * Dashboard tickets (docs/dashboard.md#access-token): what a dashboard's page presents on its WebSocket
 * upgrade instead of a cookie. A ticket names the one origin (scheme, host and port) whose page may
 * use it, the most it grants (`readonly` or `readandwrite`) and when it expires; it is signed with a
 * key that never leaves the server process, so only the server (for `--web`) or a client it trusted
 * (`dashboard.ticket`, for `ribosome web`) can make one. Pure apart from the key's random bytes.
 */

/** Long enough to open one WebSocket; the page asks for a new ticket at each (re)connection. */
export const TICKET_TTL_MS = 60_000;

export type Ticket = { origin: string; mode: ClientMode; expiresAt: number };

export function newTicketKey(): Buffer {
  return randomBytes(32);
}

function mac(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** `<payload>.<mac>`, both base64url: valid in a subprotocol name as is. */
export function mintTicket(key: Buffer, ticket: Ticket): string {
  const payload = Buffer.from(
    JSON.stringify({ o: ticket.origin, m: ticket.mode, e: ticket.expiresAt }),
  ).toString('base64url');
  return `${payload}.${mac(key, payload)}`;
}

/** The ticket's grant when it is this key's, unexpired at `now` and made for `origin`; else undefined. */
export function verifyTicket(
  key: Buffer,
  text: string,
  origin: string | undefined,
  now: number,
): Ticket | undefined {
  const [payload, given, ...rest] = text.split('.');
  if (!payload || !given || rest.length > 0) return undefined;
  const expected = Buffer.from(mac(key, payload));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { o, m, e } = (body ?? {}) as { o?: unknown; m?: unknown; e?: unknown };
  if (typeof o !== 'string' || (m !== 'readonly' && m !== 'readandwrite') || typeof e !== 'number')
    return undefined;
  if (e <= now || o !== origin) return undefined;
  return { origin: o, mode: m, expiresAt: e };
}

/** The tickets an upgrade offers in its Sec-WebSocket-Protocol header. */
export function ticketsOffered(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.startsWith(TICKET_PROTOCOL_PREFIX))
    .map((p) => p.slice(TICKET_PROTOCOL_PREFIX.length));
}

/**
 * The subprotocol to answer with: ours when offered, else the first that is not a ticket (a ticket
 * is never echoed), else none. A browser that offered some fails the upgrade when none is selected.
 */
export function selectProtocol(offered: ReadonlySet<string>): string | false {
  if (offered.has(DASHBOARD_PROTOCOL)) return DASHBOARD_PROTOCOL;
  for (const p of offered) if (!p.startsWith(TICKET_PROTOCOL_PREFIX)) return p;
  return false;
}

/** A page origin as browsers send it (`http://host:port`, lowercase, no path), or undefined. */
export function normalOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '')) return undefined;
    if (url.search || url.hash) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}
