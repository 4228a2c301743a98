// What the proxy may write to a log line about a request: URLs with their credentials masked and
// errors reduced to name, code, message and stack (Node's parse errors carry the raw request bytes,
// headers included, in `rawPacket`). Pure.

export const REDACTED = '[REDACTED]';

// A parameter is a credential when its name, or one of the words in it, is one of these...
const CREDENTIAL_WORDS = new Set([
  'auth',
  'authorization',
  'bearer',
  'credential',
  'credentials',
  'hmac',
  'jwt',
  'key',
  'otp',
  'pass',
  'passwd',
  'password',
  'pwd',
  'secret',
  'session',
  'sessionid',
  'sig',
  'signature',
  'token',
]);
// ...or ends like one of these (apikey, accesstoken, clientsecret, x-amz-security-token).
const CREDENTIAL_ENDINGS = ['key', 'token', 'secret', 'password', 'signature', 'sessionid'];

/** camelCase and separators split into lower-case words: `X-Amz-Signature` -> x, amz, signature. */
function words(name: string): string[] {
  return (name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? []).map((word) => word.toLowerCase());
}

/** Whether a query parameter name looks like it carries a credential (case-insensitive). */
export function isCredentialName(name: string): boolean {
  const joined = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  for (const word of [joined, ...words(name)]) {
    if (CREDENTIAL_WORDS.has(word)) return true;
    if (CREDENTIAL_ENDINGS.some((ending) => word.endsWith(ending))) return true;
  }
  return false;
}

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** `a=1&api_key=x` -> `a=1&api_key=[REDACTED]`; the rest keeps its bytes and order. */
function redactParams(params: string): string {
  return params
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      if (equals === -1 || !isCredentialName(decodedName(name))) return pair;
      return `${name}=${REDACTED}`;
    })
    .join('&');
}

/**
 * The path part: credential-like `name=value` pairs in it (matrix parameters `;jsessionid=x`, or a
 * query hidden by percent-encoding `/%3Fapi_key=x`) are redacted, in the decoded form when that is
 * where they show.
 */
function redactPath(path: string): string {
  const pairs = /([A-Za-z0-9_.-]+)=([^&;/?#\s]*)/g;
  const redact = (text: string) =>
    text.replace(pairs, (pair, name: string) => (isCredentialName(name) ? `${name}=${REDACTED}` : pair));
  const raw = redact(path);
  if (raw !== path) return raw;
  const decoded = decodedName(path);
  const redacted = redact(decoded);
  return redacted === decoded ? path : redacted;
}

/**
 * A URL or request-target as it may be logged or echoed: the values of credential-like query (and
 * fragment) parameters and any user-info (`scheme://user:pass@host`) replaced by [REDACTED].
 * Works on strings that are not valid URLs too.
 */
export function redactUrl(url: string): string {
  // An agent asks for the same few paths again and again; each exchange logs its URL twice.
  const known = redacted.get(url);
  if (known !== undefined) return known;
  const out = redactUncached(url);
  if (url.length <= MAX_CACHED_URL_LENGTH) {
    if (redacted.size >= MAX_CACHED_URLS) redacted.clear();
    redacted.set(url, out);
  }
  return out;
}

const redacted = new Map<string, string>();
const MAX_CACHED_URLS = 256;
const MAX_CACHED_URL_LENGTH = 2048;

function redactUncached(url: string): string {
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? undefined : url.slice(hashAt + 1);
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? undefined : beforeHash.slice(queryAt + 1);
  let out = redactPath(base.replace(/^((?:[a-z][a-z0-9+.-]*:)?\/\/)[^/?#@]*@/i, `$1${REDACTED}@`));
  if (query !== undefined) out += `?${redactParams(query)}`;
  if (fragment !== undefined) out += `#${redactParams(fragment)}`;
  return out;
}

/**
 * An error as a log field: an error of the same class with only its message, stack and code, so
 * pino's serializer still names the class but finds no other property to copy.
 */
export function errorForLog(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const safe: Error & { code?: string } = Object.create(Object.getPrototypeOf(error));
  Object.defineProperties(safe, {
    message: { value: error.message, writable: true, configurable: true },
    stack: { value: error.stack, writable: true, configurable: true },
  });
  if ('code' in error && typeof error.code === 'string') safe.code = error.code;
  return safe;
}
