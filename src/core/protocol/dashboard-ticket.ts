import { z } from 'zod';
import { ours } from './extension.ts';
import { ClientMode } from './shared.ts';

export { DASHBOARD_PROTOCOL, TICKET_PROTOCOL_PREFIX, ticketProtocols } from './ticket-protocols.ts';

/**
 * Ours: `dashboard.ticket`, how a dashboard served by another process (`ribosome web`) gets the
 * credential its page presents on the WebSocket upgrade (docs/dashboard.md#access-token). Only a client
 * without an Origin (not a page) may ask; a readonly one only for readonly tickets.
 */
export const DashboardTicketRequest = ours(
  z.object({
    /** The page origin the ticket is for: `http(s)://HOST:PORT`. */
    origin: z.string().min(1).max(2048),
    /** The most the ticket grants, whatever the page's handshake asks. */
    mode: ClientMode,
  }),
  'A short-lived ticket for a dashboard page of this origin (answered with dashboard.ticket to the asker only).',
);

export const DashboardTicketData = ours(
  z.object({
    /** Offered by the page as the WebSocket subprotocol `ribosome-ticket.<ticket>`, beside `ribosome`. */
    ticket: z.string(),
    origin: z.string(),
    mode: ClientMode,
    /** ISO 8601: past it the ticket opens nothing (a connection it opened stays). */
    expiresAt: z.string(),
  }),
  'The answer to dashboard.ticket.',
);
