import { blockedPortMeaning, fetchBlockedPort } from '../../llm/providers/fetch-ports.ts';
import type { ProviderBaseUrlResult } from '../../plan/config/proxy-config.ts';
import { REDACTED, redactUrl } from '../../platform/credentials/log-safe.ts';
import type { CheckResult } from './check-result.ts';

/**
 * The URL as shown: any user:password part removed and every query value replaced by [REDACTED]
 * (with the credential-like parameters of its path), so a credential in it is never printed.
 */
export function shownUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  const query = [...shown.searchParams.keys()].map((name) => `${encodeURIComponent(name)}=${REDACTED}`);
  shown.search = '';
  shown.hash = '';
  return redactUrl(shown.href) + (query.length > 0 ? `?${query.join('&')}` : '');
}

const FIX_URL =
  'give --provider-base-url (or SERVICE_RUNTIME_PROVIDER_BASE_URL, ANTHROPIC_BASE_URL, the config file key providerBaseUrl) as http(s)://host[:port][/path], without user, password or query';

/**
 * The server's provider as `ribosome run` resolves it (src/plan/config/proxy-config.ts): one refused there
 * fails here with the same sentence. Any HTTP answer (even 404 or 401: no credential is sent) means
 * it is reachable; a refused connection, a DNS failure, a port fetch refuses or no answer within
 * `timeoutMs` fails. Nothing shown carries the URL's credentials or query values.
 */
export async function checkProvider(
  resolved: ProviderBaseUrlResult,
  timeoutMs = 2_500,
): Promise<CheckResult> {
  if (!resolved.ok) return { check: 'provider', status: 'fail', detail: resolved.message, fix: FIX_URL };
  let url: URL;
  try {
    url = new URL(resolved.value);
  } catch {
    return { check: 'provider', status: 'fail', detail: 'the base URL is not a URL', fix: FIX_URL };
  }
  const shown = shownUrl(url);
  const from = resolved.source === 'default' ? '' : ` (${resolved.source})`;
  const blocked = fetchBlockedPort(url.href);
  if (blocked !== undefined) {
    return {
      check: 'provider',
      status: 'fail',
      detail: `${shown}${from}: ${blockedPortMeaning(blocked)}`,
      fix: 'run the provider (or gateway) on another port; `ribosome run` refuses this one for built-in codons and sentinels unless --proxy is on',
    };
  }
  try {
    // Fetched without any user:password or query (fetch refuses the first, echoing the whole URL).
    const response = await fetch(url.origin + url.pathname, {
      method: 'HEAD',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { check: 'provider', status: 'ok', detail: `${shown}${from} answered HTTP ${response.status}` };
  } catch (error) {
    const err = error as Error & { cause?: { code?: string; message?: string } };
    const why =
      err.name === 'TimeoutError'
        ? `no answer within ${timeoutMs / 1000} s`
        : (err.cause?.code ?? err.cause?.message ?? err.message);
    return {
      check: 'provider',
      status: 'fail',
      detail: `${shown}${from}: ${why}`,
      fix: 'check the network (or HTTPS proxy), or point the provider setting named here at a provider that is up',
    };
  }
}
