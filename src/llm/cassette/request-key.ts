/**
 * What a request is recorded and matched by: its path, API, model, canonical body (fingerprint.ts)
 * with the server's secrets taken out, and the fingerprint of both. Pure.
 */
import type { SecretRedactor } from '../../platform/credentials/secret-redactor.ts';
import { apiOf, type WireApi } from '../spend/worst-case.ts';
import { type Canonical, canonicalRequest, fingerprintOf, type Placeholders } from './fingerprint.ts';

export type RequestKey = {
  method: string;
  path: string;
  api?: WireApi;
  model?: string;
  request: Canonical;
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
  const canonical = canonicalRequest(parsed(body), options.placeholders);
  const request = options.secrets && !options.secrets.empty ? options.secrets.value(canonical) : canonical;
  const model =
    call?.pathModel ??
    (typeof request === 'object' &&
    request !== null &&
    !Array.isArray(request) &&
    typeof request.model === 'string'
      ? request.model
      : undefined);
  return {
    method,
    path,
    ...(call ? { api: call.api } : {}),
    ...(model ? { model } : {}),
    request,
    fingerprint: fingerprintOf([method, path, request]),
  };
}
