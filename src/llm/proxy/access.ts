/**
 * Who may use a proxy that listens beyond loopback (docs/proxy.md): a request carries one of
 * the accepted credentials (the server's access token, the run's agent credential) as a path prefix
 * `/t/<credential>` (what an SDK's base URL can hold) or in the header `x-ribosome-token`. Pure.
 */
import { tokenMatches } from '../../platform/http/token.ts';
import type { ExchangeFailure } from './errors.ts';

/** The header a client may carry its credential in; never forwarded. */
export const CREDENTIAL_HEADER = 'x-ribosome-token';

/** `/t/<credential>` and what follows it (a path, a query, or nothing). */
const CREDENTIAL_PATH = /^\/t\/([^/?]+)(?=[/?]|$)(.*)$/;

/** The path prefix that carries `credential`: a base URL ending in it reaches the proxy as a client. */
export const credentialPrefix = (credential: string): string => `/t/${encodeURIComponent(credential)}`;

export type AccessVerdict =
  | { ok: true; url: string }
  | { ok: false; reason: 'missing' | 'wrong'; failure: ExchangeFailure };

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Whether a request may pass, and its request-target without the credential prefix. 401 without a
 * credential, 403 with a wrong one; every candidate is compared (in constant time), so the timing does
 * not say which one matched.
 */
export function checkAccess(
  request: { url: string; header: string | string[] | undefined },
  accepted: readonly string[],
): AccessVerdict {
  const given: string[] = [];
  let url = request.url;
  const inPath = CREDENTIAL_PATH.exec(url);
  if (inPath) {
    given.push(decoded(inPath[1]!));
    const rest = inPath[2] ?? '';
    url = rest.startsWith('/') ? rest : `/${rest}`;
  }
  const header = request.header;
  for (const value of typeof header === 'string' ? [header] : (header ?? [])) given.push(value.trim());
  if (given.length === 0) {
    return {
      ok: false,
      reason: 'missing',
      failure: {
        code: 'PROXY_CREDENTIAL_MISSING',
        status: 401,
        message: `Proxy: this proxy listens beyond loopback and needs the server's access token: put it in the base URL as <proxy>/t/<token> or send it as ${CREDENTIAL_HEADER}: <token>.`,
      },
    };
  }
  let ok = false;
  for (const candidate of given)
    for (const credential of accepted) ok = tokenMatches(candidate, credential) || ok;
  if (ok) return { ok: true, url };
  return {
    ok: false,
    reason: 'wrong',
    failure: {
      code: 'PROXY_CREDENTIAL_WRONG',
      status: 403,
      message:
        "Proxy: the credential sent is not this server's access token (a server restarted with a new token?).",
    },
  };
}
