/**
 * Ports Node's fetch refuses to connect to (the Fetch standard's "bad port" list; Node 24 refuses
 * exactly these): the built-in agent and the sentinels call their provider with fetch, so a provider
 * on one of them fails every call with "bad port". Pure.
 */

const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Whether fetch refuses this port. */
export const isFetchBlockedPort = (port: number): boolean => BAD_PORTS.has(port);

/** Every port fetch refuses, ascending. */
export const fetchBlockedPorts = (): number[] => [...BAD_PORTS].sort((a, b) => a - b);

/** The port of an http(s) URL (its scheme's default when it names none), or undefined for a non-URL. */
export function urlPort(url: string): number | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.port !== '') return Number(parsed.port);
    return parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : undefined;
  } catch {
    return undefined;
  }
}

/** The port fetch would refuse for this URL, or undefined when it may be fetched. */
export function fetchBlockedPort(url: string): number | undefined {
  const port = urlPort(url);
  return port !== undefined && BAD_PORTS.has(port) ? port : undefined;
}

/** What a blocked port means, to follow a URL or a "who calls URL" in a message. */
export function blockedPortMeaning(port: number): string {
  return `port ${port} is one Node's fetch refuses to connect to ("bad port"): the built-in agent and the sentinels cannot reach it`;
}
