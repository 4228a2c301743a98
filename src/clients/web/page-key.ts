/**
 * The page's credentials (docs/dashboard.md#access-token). The address printed carries the dashboard's key
 * (`?token=`, or `#token=`): read once, taken out of the address (history, bookmarks, screenshots)
 * and kept in sessionStorage, which only this origin (scheme, host and port) and this tab can read;
 * never a cookie, which the browser would send to every port of the host. Each WebSocket is opened
 * with a ticket this dashboard hands out for this origin (`/ticket`).
 */
const STORAGE_KEY = 'ribosome.dashboardKey';

export function dashboardKey(): string | undefined {
  const url = new URL(window.location.href);
  const hash = new URLSearchParams(url.hash.slice(1));
  const given = url.searchParams.get('token') ?? hash.get('token');
  if (given) {
    window.sessionStorage.setItem(STORAGE_KEY, given);
    url.searchParams.delete('token');
    hash.delete('token');
    const rest = hash.toString();
    window.history.replaceState(null, '', `${url.pathname}${url.search}${rest ? `#${rest}` : ''}`);
  }
  return window.sessionStorage.getItem(STORAGE_KEY) ?? undefined;
}

/** For each server URL of the page, how to get a fresh ticket (one per connection attempt). */
export function ticketSource(urls: readonly string[], key: string | undefined) {
  return (url: string): Promise<string> => fetchTicket(`server=${urls.indexOf(url)}`, key);
}

/**
 * For a batch's job, how to get a fresh ticket: by its index, and its id, which the dashboard
 * checks (the list is read again at each request).
 */
export function jobTicketSource(key: string | undefined) {
  return (job: { index: number; id: string }): Promise<string> =>
    fetchTicket(`server=${job.index}&id=${encodeURIComponent(job.id)}`, key);
}

async function fetchTicket(which: string, key: string | undefined): Promise<string> {
  const query = `${which}&origin=${encodeURIComponent(window.location.origin)}`;
  const response = await fetch(`ticket?${query}`, {
    cache: 'no-store',
    ...(key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } }),
  });
  const body = (await response.json().catch(() => ({}))) as { ticket?: string; message?: string };
  if (!response.ok || !body.ticket) throw new Error(body.message ?? `ticket: HTTP ${response.status}`);
  return body.ticket;
}
