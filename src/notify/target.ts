import type { NotifyEvent, NotifyTarget } from '../plan/unattended-schema.ts';
import { redactUrl } from '../proxy/log-safe.ts';

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

/** How a webhook URL may appear in a log line or an event: origin and path (no user-info, query or fragment). */
export function displayUrl(webhook: string): string {
  try {
    const url = new URL(webhook);
    return redactUrl(`${url.origin}${url.pathname}`);
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
