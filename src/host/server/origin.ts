import { isLoopbackHost } from '../../platform/http/loopback.ts';
import type { Ticket } from './dashboard-ticket.ts';
import { normalOrigin } from './dashboard-ticket.ts';

export type UpgradeInput = {
  /** The upgrade's Origin header: browsers always send one, other clients normally none. */
  origin: string | undefined;
  /** `--allow-origin` (`*` = any). */
  allowOrigins: readonly string[];
  /** A dashboard ticket the upgrade carried, already checked against its origin (verifyTicket). */
  ticket: Ticket | undefined;
  /** The access token: not required (`none`), or what the upgrade carried of it. */
  token: 'none' | 'ok' | 'missing' | 'wrong';
};

export type UpgradeVerdict =
  | { ok: true; ticket?: Ticket }
  | {
      ok: false;
      status: '401 Unauthorized' | '403 Forbidden';
      error: 'token_required' | 'token_wrong' | 'origin_not_allowed';
    };

/**
 * Who may open a WebSocket (docs/dashboard.md#access-token), as a pure table. A page (an upgrade with an
 * Origin) gets in with a dashboard ticket made for its origin, which stands for the token too; or
 * from an origin the user allowed (`--allow-origin`), with the token when one is set. Being on
 * loopback is not enough: any local server's page would do (cross-site WebSocket hijacking). An
 * upgrade without Origin is not a browser's: only the token, when set, is asked of it.
 */
export function decideUpgrade(input: UpgradeInput): UpgradeVerdict {
  const origin = input.origin ?? '';
  const browser = origin !== '';
  if (browser && input.ticket) return { ok: true, ticket: input.ticket };
  // A page of a foreign origin learns nothing more, not even whether a token is needed.
  if (browser && !input.allowOrigins.includes('*') && !input.allowOrigins.includes(origin))
    return { ok: false, status: '403 Forbidden', error: 'origin_not_allowed' };
  if (input.token === 'missing') return { ok: false, status: '401 Unauthorized', error: 'token_required' };
  if (input.token === 'wrong') return { ok: false, status: '403 Forbidden', error: 'token_wrong' };
  return { ok: true };
}

export type TicketRequest = {
  /** The origin the page says it has (`location.origin`). */
  claimed: string;
  /** The request's Host header: the name and port the browser reached the dashboard by. */
  host: string | undefined;
  /** The request's Origin header, when the browser sent one (never for a same-origin GET). */
  origin: string | undefined;
  /** The dashboard needs its key: the request carried it (checked before this). */
  keyed: boolean;
  /** The request's Sec-Fetch-Site header: a browser's word on who asks (absent from older browsers). */
  fetchSite?: string | undefined;
};

/**
 * The origin a dashboard may ask a ticket for, or why not: the page's own (the host and port its
 * request reached, whatever the scheme a TLS proxy in front adds). Without a key, only by a
 * loopback name: a page of another site whose name was rebound to this address (DNS rebinding) must
 * get nothing.
 */
export function ticketOrigin(
  request: TicketRequest,
): { ok: true; origin: string } | { ok: false; why: string } {
  const claimed = normalOrigin(request.claimed);
  if (!claimed) return { ok: false, why: 'origin must be the page’s origin, http(s)://HOST:PORT' };
  if (request.origin !== undefined && request.origin !== claimed)
    return { ok: false, why: 'asked by a page of another origin' };
  // A no-cors request from another page carries no Origin; the browser still says it is not ours.
  if (request.fetchSite !== undefined && request.fetchSite !== 'same-origin' && request.fetchSite !== 'none')
    return { ok: false, why: 'asked by a page of another origin' };
  const url = new URL(claimed);
  if (!request.host || url.host !== request.host.toLowerCase())
    return { ok: false, why: 'origin is not this dashboard’s' };
  if (!request.keyed && !isLoopbackHost(url.hostname))
    return { ok: false, why: 'without an access token the dashboard is only for loopback names' };
  return { ok: true, origin: claimed };
}
