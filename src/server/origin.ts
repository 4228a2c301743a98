const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** An address only this machine reaches: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * Cross-site WebSocket hijacking guard: a browser always sends Origin, so an upgrade that carries
 * one must come from a loopback page or an origin the user allowed. Non-browser clients send none.
 */
export function isOriginAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || origin === '') return true;
  if (allowed.includes('*') || allowed.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

export type Dashboard = {
  /** The dashboard's HTTP port (`--web`). */
  port: number;
  /** The address the server is bound to. */
  host: string;
  /** A token is required: then the page may be reached by any name of this host (see below). */
  tokenRequired: boolean;
};

/**
 * The dashboard's own pages (`ribosome run --web`): an http origin on its port, named as the server is
 * bound. With a token, also by the name the upgrade itself was sent to (its Host header): a server
 * bound to 0.0.0.0 is reached by whatever name the user typed. Without a token that second rule would
 * let a DNS-rebinding page in, so it needs one.
 */
export function isDashboardOrigin(
  origin: string | undefined,
  dashboard: Dashboard | undefined,
  requestHost: string | undefined,
): boolean {
  if (!origin || !dashboard) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || url.port !== String(dashboard.port)) return false;
  const bare = (name: string) => name.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare(url.hostname) === bare(dashboard.host)) return true;
  if (!dashboard.tokenRequired || !requestHost) return false;
  try {
    return bare(new URL(`http://${requestHost}`).hostname) === bare(url.hostname);
  } catch {
    return false;
  }
}
