import type { IncomingMessage } from 'node:http';
import { type ClientMode, echo } from '../../core/protocol/index.ts';
import { checkToken } from '../../platform/http/token.ts';
import { type Ticket, ticketsOffered, verifyTicket } from './dashboard-ticket.ts';
import { decideUpgrade } from './origin.ts';

/** Whether an upgrade becomes a client: as a page or not, with what its ticket grants; or the refusal. */
export type Admission =
  | { ok: true; fromPage: boolean; ticketMode: ClientMode | undefined }
  | {
      ok: false;
      /** The HTTP status line and JSON body the upgrade is answered with. */
      status: string;
      body: Record<string, unknown>;
      /** What the server log says of it (never the token). */
      log: { fields: Record<string, unknown>; message: string };
    };

export type AdmissionRules = {
  ticketKey: Buffer;
  token: string | undefined;
  allowOrigins: readonly string[];
  maxClients: number;
  /** Clients connected now. */
  clients: number;
  now: number;
};

/**
 * Admits a WebSocket upgrade (spec 3.1): its origin, dashboard ticket and access token
 * (`decideUpgrade`), then room under --max-clients (503 without).
 */
export function admitUpgrade(
  req: IncomingMessage,
  remote: string | undefined,
  rules: AdmissionRules,
): Admission {
  const origin = req.headers.origin;
  const offered = ticketsOffered(req.headers['sec-websocket-protocol']);
  let ticket: Ticket | undefined;
  for (const candidate of offered) ticket ??= verifyTicket(rules.ticketKey, candidate, origin, rules.now);
  const verdict = decideUpgrade({
    origin,
    allowOrigins: rules.allowOrigins,
    ticket,
    token:
      rules.token === undefined
        ? 'none'
        : checkToken({ authorization: req.headers.authorization, url: req.url }, rules.token),
  });
  if (!verdict.ok) {
    const shown = echo(origin ?? '');
    return {
      ok: false,
      status: verdict.status,
      body: {
        error: verdict.error,
        message:
          verdict.error === 'token_required'
            ? 'this server requires its access token: send Authorization: Bearer <token> (or open the dashboard address it printed)'
            : verdict.error === 'token_wrong'
              ? 'the access token sent is not this server’s'
              : `Origin ${shown} is not allowed: a page may connect only from a Ribosome dashboard (with the ticket it gets there) or from an origin given with --allow-origin ${shown}`,
      },
      log: {
        fields: { remote, origin: shown, verdict: verdict.error, ticket: offered.length > 0 },
        message:
          verdict.error === 'origin_not_allowed'
            ? 'refused WebSocket upgrade from a non-allowed origin'
            : 'refused WebSocket upgrade: token',
      },
    };
  }
  const { maxClients, clients } = rules;
  if (clients >= maxClients) {
    return {
      ok: false,
      status: '503 Service Unavailable',
      body: {
        error: 'too_many_clients',
        message: `this server already has ${maxClients} clients, its limit (--max-clients, limits.maxClients in the config file); try again once one has disconnected`,
        maxClients,
      },
      log: { fields: { clients }, message: 'refused WebSocket upgrade: too many clients' },
    };
  }
  return { ok: true, fromPage: origin !== undefined && origin !== '', ticketMode: verdict.ticket?.mode };
}
