import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TICKET_PROTOCOL_PREFIX } from '../../../src/core/protocol/index.ts';
import { type AdmissionRules, admitUpgrade } from '../../../src/host/server/admission.ts';
import { mintTicket, newTicketKey } from '../../../src/host/server/dashboard-ticket.ts';

const PAGE = 'http://127.0.0.1:8002';
const TOKEN = 'a-token-of-enough-length-0123456789';
const key = newTicketKey();
const rules = (over: Partial<AdmissionRules> = {}): AdmissionRules => ({
  ticketKey: key,
  token: undefined,
  allowOrigins: [],
  maxClients: 4,
  clients: 0,
  now: 1_000,
  ...over,
});
const upgrade = (headers: Record<string, string>, url = '/'): IncomingMessage =>
  ({ headers, url }) as unknown as IncomingMessage;
const ticketFor = (origin: string, mode: 'readandwrite' | 'readonly' = 'readonly') =>
  `${TICKET_PROTOCOL_PREFIX}${mintTicket(key, { origin, mode, expiresAt: 60_000 })}`;

describe('admitUpgrade: which WebSocket upgrades become clients', () => {
  it.each([
    ['a program without Origin, no token set', {}, rules(), 'ok'],
    ['a program with the token', { authorization: `Bearer ${TOKEN}` }, rules({ token: TOKEN }), 'ok'],
    ['a program without the token', {}, rules({ token: TOKEN }), '401 Unauthorized token_required'],
    [
      'a program with a wrong token',
      { authorization: 'Bearer nope' },
      rules({ token: TOKEN }),
      '403 Forbidden token_wrong',
    ],
    ['a page without a ticket', { origin: PAGE }, rules(), '403 Forbidden origin_not_allowed'],
    [
      'a page with its ticket',
      { origin: PAGE, 'sec-websocket-protocol': ticketFor(PAGE) },
      rules(),
      'ok page readonly',
    ],
    [
      'a page with another page’s ticket',
      { origin: 'http://127.0.0.1:9', 'sec-websocket-protocol': ticketFor(PAGE) },
      rules(),
      '403 Forbidden origin_not_allowed',
    ],
    ['a page given with --allow-origin', { origin: PAGE }, rules({ allowOrigins: [PAGE] }), 'ok page'],
    ['one client past --max-clients', {}, rules({ clients: 4 }), '503 Service Unavailable too_many_clients'],
  ])('%s', (_name, headers, r, expected) => {
    const a = admitUpgrade(upgrade(headers), '127.0.0.1', r);
    const said = a.ok
      ? ['ok', a.fromPage ? 'page' : '', a.ticketMode ?? ''].filter(Boolean).join(' ')
      : `${a.status} ${a.body.error}`;
    expect(said).toBe(expected);
  });

  it('a refusal names the way in, and its log line never carries the token', () => {
    const a = admitUpgrade(
      upgrade({ authorization: `Bearer ${TOKEN}x` }),
      '127.0.0.1',
      rules({ token: TOKEN }),
    );
    expect(a.ok).toBe(false);
    if (a.ok) return;
    expect(JSON.stringify(a.log)).not.toContain(TOKEN);
    const full = admitUpgrade(upgrade({}), '127.0.0.1', rules({ clients: 4 }));
    expect(!full.ok && full.body.message).toMatch(/--max-clients, limits.maxClients/);
  });
});
