import { describe, expect, it } from 'vitest';
import {
  mintTicket,
  newTicketKey,
  normalOrigin,
  selectProtocol,
  type Ticket,
  ticketsOffered,
  verifyTicket,
} from '../../../src/host/server/dashboard-ticket.ts';
import { decideUpgrade, ticketOrigin, type UpgradeInput } from '../../../src/host/server/origin.ts';

const PAGE = 'http://127.0.0.1:8002';
const ticket: Ticket = { origin: PAGE, mode: 'readonly', expiresAt: 10_000 };

describe('decideUpgrade: who may open a WebSocket', () => {
  const row = (input: Partial<UpgradeInput>) =>
    decideUpgrade({ origin: undefined, allowOrigins: [], ticket: undefined, token: 'none', ...input });
  it.each([
    // Not a browser: only the token, when one is set.
    [{}, 'ok'],
    [{ origin: '' }, 'ok'],
    [{ token: 'ok' }, 'ok'],
    [{ token: 'missing' }, '401 token_required'],
    [{ token: 'wrong' }, '403 token_wrong'],
    // A page of another local server: loopback is not enough (cross-site WebSocket hijacking).
    [{ origin: 'http://127.0.0.1:5173' }, '403 origin_not_allowed'],
    [{ origin: 'http://localhost:3000' }, '403 origin_not_allowed'],
    [{ origin: 'http://evil.example' }, '403 origin_not_allowed'],
    [{ origin: 'null' }, '403 origin_not_allowed'],
    // A dashboard's page with its ticket: in, and the ticket stands for the token.
    [{ origin: PAGE, ticket }, 'ok readonly'],
    [{ origin: PAGE, ticket, token: 'missing' }, 'ok readonly'],
    // A ticket counts for pages only: without Origin the token is asked.
    [{ ticket, token: 'missing' }, '401 token_required'],
    // --allow-origin, with the token when one is set.
    [{ origin: 'http://evil.example', allowOrigins: ['http://evil.example'] }, 'ok'],
    [{ origin: 'http://other.example', allowOrigins: ['http://evil.example'] }, '403 origin_not_allowed'],
    [{ origin: 'http://any.example', allowOrigins: ['*'] }, 'ok'],
    [{ origin: 'http://any.example', allowOrigins: ['*'], token: 'missing' }, '401 token_required'],
    [{ origin: 'http://127.0.0.1:5173', token: 'ok' }, '403 origin_not_allowed'],
    [{ origin: 'http://127.0.0.1:5173', token: 'missing' }, '403 origin_not_allowed'],
    [{ origin: 'http://127.0.0.1:5173', token: 'wrong' }, '403 origin_not_allowed'],
  ] as const)('%j -> %s', (input, expected) => {
    const verdict = row(input);
    const shown = verdict.ok
      ? `ok${verdict.ticket ? ` ${verdict.ticket.mode}` : ''}`
      : `${verdict.status.slice(0, 3)} ${verdict.error}`;
    expect(shown).toBe(expected);
  });
});

describe('dashboard tickets', () => {
  const key = newTicketKey();
  const text = mintTicket(key, { origin: PAGE, mode: 'readandwrite', expiresAt: 5_000 });

  it('open for their own origin, with their mode, until they expire', () => {
    expect(verifyTicket(key, text, PAGE, 4_999)).toEqual({
      origin: PAGE,
      mode: 'readandwrite',
      expiresAt: 5_000,
    });
    expect(verifyTicket(key, text, PAGE, 5_000)).toBeUndefined();
    // Another port of the same host is another origin.
    expect(verifyTicket(key, text, 'http://127.0.0.1:8003', 0)).toBeUndefined();
    expect(verifyTicket(key, text, undefined, 0)).toBeUndefined();
  });

  it("open nothing when another server's key made them, or when changed", () => {
    expect(verifyTicket(newTicketKey(), text, PAGE, 0)).toBeUndefined();
    const [payload, mac] = text.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ o: PAGE, m: 'readandwrite', e: 9e15 })).toString('base64url');
    expect(verifyTicket(key, `${forged}.${mac}`, PAGE, 0)).toBeUndefined();
    expect(verifyTicket(key, `${payload}.${mac}x`, PAGE, 0)).toBeUndefined();
    expect(verifyTicket(key, payload, PAGE, 0)).toBeUndefined();
    expect(verifyTicket(key, `${text}.more`, PAGE, 0)).toBeUndefined();
    expect(verifyTicket(key, '', PAGE, 0)).toBeUndefined();
  });

  it('travel as a subprotocol, never echoed back', () => {
    expect(ticketsOffered(`ribosome, ribosome-ticket.${text}`)).toEqual([text]);
    expect(ticketsOffered(undefined)).toEqual([]);
    expect(selectProtocol(new Set(['ribosome', `ribosome-ticket.${text}`]))).toBe('ribosome');
    expect(selectProtocol(new Set([`ribosome-ticket.${text}`]))).toBe(false);
    expect(selectProtocol(new Set(['chat']))).toBe('chat');
    expect(selectProtocol(new Set())).toBe(false);
  });

  it.each([
    ['http://127.0.0.1:8002', 'http://127.0.0.1:8002'],
    ['HTTP://LocalHost:8002/', 'http://localhost:8002'],
    ['https://box.example', 'https://box.example'],
    ['http://127.0.0.1:8002/path', undefined],
    ['http://u:p@127.0.0.1:8002', undefined],
    ['file:///x', undefined],
    ['null', undefined],
  ])('origin %s -> %s', (text, expected) => {
    expect(normalOrigin(text)).toBe(expected);
  });
});

describe('ticketOrigin: what a dashboard hands a ticket for', () => {
  it.each([
    // The page's own origin, as its request reached the dashboard.
    [{ claimed: PAGE, host: '127.0.0.1:8002', keyed: false }, 'ok'],
    [{ claimed: 'https://box.example:8002', host: 'box.example:8002', keyed: true }, 'ok'],
    // Another port asking through a cross-origin request, or claiming another origin: no.
    [{ claimed: 'http://127.0.0.1:5173', host: '127.0.0.1:8002', keyed: false }, 'not this'],
    [{ claimed: PAGE, host: '127.0.0.1:8002', origin: 'http://127.0.0.1:5173', keyed: false }, 'another'],
    // A rebound name without the key (DNS rebinding): no; with the key, the page proved itself.
    [{ claimed: 'http://rebound.example:8002', host: 'rebound.example:8002', keyed: false }, 'loopback'],
    [{ claimed: 'http://box.example:8002', host: 'box.example:8002', keyed: true }, 'ok'],
    [{ claimed: 'nonsense', host: '127.0.0.1:8002', keyed: false }, 'origin must'],
    [{ claimed: PAGE, host: undefined, keyed: false }, 'not this'],
    // A no-cors request of another page has no Origin, but the browser says where it comes from.
    [{ claimed: PAGE, host: '127.0.0.1:8002', keyed: false, fetchSite: 'cross-site' }, 'another'],
    [{ claimed: PAGE, host: '127.0.0.1:8002', keyed: false, fetchSite: 'same-site' }, 'another'],
    [{ claimed: PAGE, host: '127.0.0.1:8002', keyed: false, fetchSite: 'same-origin' }, 'ok'],
  ] as const)('%j -> %s', (input, expected) => {
    const answer = ticketOrigin({ origin: undefined, ...input });
    if (expected === 'ok') expect(answer).toEqual({ ok: true, origin: input.claimed });
    else expect(answer.ok ? 'ok' : answer.why).toContain(expected);
  });
});
