import type { NotifyEvent, NotifyTarget } from '../../plan/unattended-schema.ts';
import { redactUrl } from '../../platform/credentials/log-safe.ts';

/** A webhook ready to be called: where to POST, the headers its URL implies, and how it may be shown. */
export type PreparedTarget = {
  /** The URL fetch is given: without user-info (fetch refuses it), query and path kept. */
  url: string;
  /** `Authorization: Basic` from a `user:password@` in the URL. */
  headers: Record<string, string>;
  /** Origin and path only (no user-info, no query, credential-like path pairs redacted): for logs and events. */
  display: string;
  on: ReadonlySet<NotifyEvent>;
};

/**
 * A path segment that looks like a key rather than a name: hook services put the secret in the path
 * (`/services/T0123ABCD/B0456EFGH/x9Yz...`, `/api/webhooks/123456789012345678/<token>`).
 */
function looksSecret(segment: string): boolean {
  if (segment.length >= 16) return true;
  return segment.length >= 8 && /\d/.test(segment) && /[A-Za-z]/.test(segment);
}

/**
 * How a webhook URL may appear in a log line or an event: origin and path, without user-info, query
 * or fragment, and with key-like path segments replaced by `[redacted]`.
 */
export function displayUrl(webhook: string): string {
  try {
    const url = new URL(webhook);
    const path = url.pathname
      .split('/')
      .map((segment) => (looksSecret(decodeURIComponent(segment)) ? '[redacted]' : segment))
      .join('/');
    return redactUrl(`${url.origin}${path}`);
  } catch {
    return '[not a URL]';
  }
}

export function prepareTarget(target: NotifyTarget): PreparedTarget {
  const url = new URL(target.webhook);
  const headers: Record<string, string> = {};
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url: url.href, headers, display: displayUrl(target.webhook), on: new Set(target.on) };
}

/**
 * The plan's targets and the config file's together: both apply. The same URL named twice is one
 * target that gets the events either asked for, so nobody is told twice.
 */
export function mergeTargets(...lists: ReadonlyArray<readonly NotifyTarget[]>): NotifyTarget[] {
  const byUrl = new Map<string, Set<NotifyEvent>>();
  for (const target of lists.flat()) {
    const on = byUrl.get(target.webhook) ?? new Set<NotifyEvent>();
    for (const event of target.on) on.add(event);
    byUrl.set(target.webhook, on);
  }
  return [...byUrl].map(([webhook, on]) => ({ webhook, on: [...on] }));
}
