/**
 * Which hosts the network gate lets a sandboxed agent reach (`sandbox.network.allow`). Pure.
 *
 * An entry is `host`, `host:port` or `*.domain` (optionally `*.domain:port`); IPv6 literals in
 * brackets. Names compare case-insensitively, a trailing dot ignored. The decisions:
 * - an entry without a port allows ports 80 and 443 only, for a name and an IP literal alike: a bare
 *   `127.0.0.1` opening every loopback port would open the server's control port and the LLM proxy's
 *   other routes too; a loopback service is allowed by its port (`127.0.0.1:4873`);
 * - `*.example.com` allows every name below example.com (any depth), not example.com itself (list
 *   both to allow both), as most allowlists read it.
 */

/** A host and port asked for; `host` without IPv6 brackets, lower case, no trailing dot. */
export type HostPort = { host: string; port: number };

const DEFAULT_PORTS: readonly number[] = [80, 443];

function normalHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

/** `host:port` or `[v6]:port` as asked for by CONNECT; undefined when it is not one. */
export function parseHostPort(text: string): HostPort | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: normalHost(match[1]!), port };
}

/** `host:port` as a denial names it (IPv6 in brackets). */
export function formatHostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Whether one allow entry matches `target`. */
export function matchesHost(entry: string, target: HostPort): boolean {
  const match = /^(\*\.)?(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry.trim());
  if (!match) return false;
  const [, wildcard, name, port] = match;
  const ports = port === undefined ? DEFAULT_PORTS : [Number(port)];
  if (!ports.includes(target.port)) return false;
  const host = normalHost(target.host);
  const want = normalHost(name!);
  return wildcard ? host.endsWith(`.${want}`) : host === want;
}

/** Whether any entry of `allow` matches `target`. */
export function hostAllowed(allow: readonly string[], target: HostPort): boolean {
  return allow.some((entry) => matchesHost(entry, target));
}
