import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The access token of a server bound beyond loopback (docs/dashboard.md#access-token): given with --token or
 * RIBOSOME_TOKEN, or generated. Pure apart from the random bytes; the token itself is never logged.
 */

/** Shortest token accepted from the user: a guessable one would protect nothing. */
export const MIN_TOKEN_LENGTH = 16;

/** 32 random bytes, base64url (43 characters): safe in a URL and a header as is. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Why a token the user gave cannot be used, or undefined. */
export function tokenProblem(token: string): string | undefined {
  if (token.length < MIN_TOKEN_LENGTH) return `must be at least ${MIN_TOKEN_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(token)) return 'must be printable ASCII without spaces';
  return undefined;
}

/** Equal tokens, compared in constant time (over their hashes, so their lengths do not show either). */
export function tokenMatches(given: string, expected: string): boolean {
  const hash = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(hash(given), hash(expected));
}

/**
 * Where a token may be: never a cookie. A browser sends a host's cookies to every port of it, so a
 * cookie would hand the token to every local server a page of it visits (docs/dashboard.md#access-token).
 */
export type TokenSources = {
  authorization?: string | undefined;
  /** The request target (path and query). */
  url?: string | undefined;
};

/** Every token a request carries: `Authorization: Bearer`, `?token=` on the URL. */
export function tokensOf(request: TokenSources): string[] {
  const found: string[] = [];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '');
  if (bearer?.[1]) found.push(bearer[1]);
  const query = queryToken(request.url);
  if (query !== undefined) found.push(query);
  return found;
}

export function queryToken(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url, 'http://x').searchParams.get('token') ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * `ok` when the request carries the token (any one of its places), `missing` when it carries none
 * (401), `wrong` when what it carries does not match (403).
 */
export function checkToken(request: TokenSources, expected: string): 'ok' | 'missing' | 'wrong' {
  const given = tokensOf(request);
  if (given.length === 0) return 'missing';
  // Every candidate is compared, so the answer's timing does not say which place held a match.
  let ok = false;
  for (const token of given) ok = tokenMatches(token, expected) || ok;
  return ok ? 'ok' : 'wrong';
}

/** A URL (or request target) fit for a log: any `token=` value replaced. */
export function redactToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');
}

export type AccessToken =
  | { ok: true; token: string | undefined; generated: boolean }
  | { ok: false; message: string };

/**
 * The token of this start: `--token`, else RIBOSOME_TOKEN (empty = unset); none on loopback when none
 * is given; generated when the server binds beyond loopback without one.
 */
export function accessToken(input: {
  flag: string | undefined;
  env: string | undefined;
  loopback: boolean;
}): AccessToken {
  const given = input.flag ?? (input.env === '' ? undefined : input.env);
  if (given !== undefined) {
    const problem = tokenProblem(given);
    const where = input.flag !== undefined ? '--token' : 'RIBOSOME_TOKEN';
    return problem
      ? { ok: false, message: `${where} ${problem}` }
      : { ok: true, token: given, generated: false };
  }
  if (input.loopback) return { ok: true, token: undefined, generated: false };
  return { ok: true, token: generateToken(), generated: true };
}
