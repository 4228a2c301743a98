import type { CheckResult } from './check-result.ts';

/** The URL as shown: any user:password part removed, so a credential in it is never printed. */
export function shownUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  return shown.href;
}

/**
 * Any HTTP answer (even 404 or 401: no credential is sent) means the provider is reachable; a refused
 * connection, a DNS failure or no answer within `timeoutMs` fails.
 */
export async function checkProvider(baseUrl: string, timeoutMs = 2_500): Promise<CheckResult> {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return {
      check: 'provider',
      status: 'fail',
      detail: 'the base URL is not a URL',
      fix: 'give --provider-base-url (or ANTHROPIC_BASE_URL) as http(s)://host[:port]',
    };
  }
  // Fetched without any user:password (fetch refuses them, echoing the whole URL in its error).
  const shown = shownUrl(url);
  try {
    const response = await fetch(shown, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    return { check: 'provider', status: 'ok', detail: `${shown} answered HTTP ${response.status}` };
  } catch (error) {
    const err = error as Error & { cause?: { code?: string; message?: string } };
    const why =
      err.name === 'TimeoutError'
        ? `no answer within ${timeoutMs / 1000} s`
        : (err.cause?.code ?? err.cause?.message ?? err.message);
    return {
      check: 'provider',
      status: 'fail',
      detail: `${shown}: ${why}`,
      fix: 'check the network (or HTTPS proxy), or point --provider-base-url / ANTHROPIC_BASE_URL at a provider that is up',
    };
  }
}
