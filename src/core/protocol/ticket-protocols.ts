/**
 * How a dashboard page presents its ticket on the WebSocket upgrade (docs/dashboard.md#access-token).
 * No zod here: the page bundles it (dashboard-ticket.ts has the schemas and re-exports these).
 */

/** The subprotocol that carries a ticket: `ribosome-ticket.<ticket>` (a page cannot set headers). */
export const TICKET_PROTOCOL_PREFIX = 'ribosome-ticket.';
/** The subprotocol a dashboard offers beside its ticket, the one the server selects. */
export const DASHBOARD_PROTOCOL = 'ribosome';

/** The subprotocols that present `ticket` on an upgrade. */
export function ticketProtocols(ticket: string): string[] {
  return [DASHBOARD_PROTOCOL, `${TICKET_PROTOCOL_PREFIX}${ticket}`];
}
