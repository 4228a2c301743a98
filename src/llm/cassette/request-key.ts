/**
 * What a request is recorded and matched by: its path, API, model, canonical body (fingerprint.ts)
 * with the server's secrets taken out, and the fingerprint of both. Pure.
 */
import type { SecretRedactor } from '../../platform/credentials/secret-redactor.ts';
import { apiOf, type WireApi } from '../spend/worst-case.ts';
import { type Canonical, canonicalRequest, type Placeholders, requestFingerprint } from './fingerprint.ts';

export type RequestKey = {
  method: string;
  path: string;
  api?: WireApi;
  model?: string;
  /** The canonical form (fingerprint.ts), made when first read. */
  readonly request: Canonical;
  fingerprint: string;
};

function parsed(body: Buffer): unknown {
  if (body.length === 0) return null;
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function requestKey(
  method: string,
  url: string,
  body: Buffer,
  options: { placeholders: Placeholders; secrets?: SecretRedactor | undefined },
): RequestKey {
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  const call = apiOf(method, url);
  const value = parsed(body);
  const redact = redactorOf(options.secrets);
  // The canonical form only when asked for (a recording, a miss, a sentinel's shape): a replay's hit
  // needs the fingerprint alone.
  let request: Canonical | undefined;
  const canonical = () => {
    request ??= canonicalRequest(value, options.placeholders, redact);
    return request;
  };
  const bodyModel =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as { model?: unknown }).model
      : undefined;
  const model =
    call?.pathModel ?? (typeof bodyModel === 'string' ? (redact ? redact(bodyModel) : bodyModel) : undefined);
  return {
    method,
    path,
    ...(call ? { api: call.api } : {}),
    ...(model ? { model } : {}),
    get request() {
      return canonical();
    },
    fingerprint: requestFingerprint(method, path, value, options.placeholders, redact),
  };
}

/** One redacting function per redactor (the canonical form's cache is kept per function). */
const redactors = new WeakMap<SecretRedactor, (text: string) => string>();
function redactorOf(secrets: SecretRedactor | undefined): ((text: string) => string) | undefined {
  if (!secrets || secrets.empty) return undefined;
  let redact = redactors.get(secrets);
  if (!redact) {
    redact = (text) => secrets.text(text);
    redactors.set(secrets, redact);
  }
  return redact;
}
