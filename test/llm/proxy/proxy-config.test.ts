import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROVIDER_BASE_URL,
  resolveProviderBaseUrl,
  resolveProxyConfig,
} from '../../../src/plan/config/proxy-config.ts';

const none = { cli: {}, env: {}, file: {} };

function resolved(sources: Partial<Parameters<typeof resolveProxyConfig>[0]>) {
  const result = resolveProxyConfig({ ...none, ...sources });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function refused(sources: Partial<Parameters<typeof resolveProxyConfig>[0]>) {
  const result = resolveProxyConfig({ ...none, ...sources });
  if (result.ok) throw new Error('expected the config to be refused');
  expect(result.error.code).toBe('PROXY_CONFIG_INVALID');
  return result.error.message;
}

describe('resolveProxyConfig: enabling', () => {
  it('is off by default, with the default provider and no extra middleware', () => {
    expect(resolved({})).toEqual({
      enabled: false,
      host: '127.0.0.1',
      providerBaseUrl: DEFAULT_PROVIDER_BASE_URL,
      middleware: [],
      doubleMaxTokens: false,
      idleTimeoutMs: 600_000,
      maxBodyBytes: 32 * 1024 * 1024,
      maxInFlightBytes: 256 * 1024 * 1024,
      logBodies: false,
    });
    expect(DEFAULT_PROVIDER_BASE_URL).toBe('https://api.anthropic.com');
  });

  it('binds loopback unless --proxy-host or the file key proxyHost says otherwise (the command line first)', () => {
    expect(resolved({ cli: { proxy: true } }).host).toBe('127.0.0.1');
    expect(resolved({ file: { proxyHost: '0.0.0.0' } }).host).toBe('0.0.0.0');
    expect(resolved({ cli: { proxyHost: '::' }, file: { proxyHost: '0.0.0.0' } }).host).toBe('::');
    expect(refused({ cli: { proxyHost: ' ' } })).toMatch(/--proxy-host/);
    expect(refused({ file: { proxyHost: '' } })).toMatch(/proxyHost/);
  });

  it('turns on from each source alone', () => {
    expect(resolved({ cli: { proxy: true } }).enabled).toBe(true);
    expect(resolved({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'false' } }).enabled).toBe(true);
    expect(resolved({ file: { withoutProxy: false } }).enabled).toBe(true);
  });

  it('command line beats environment', () => {
    expect(resolved({ cli: { proxy: true }, env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'true' } }).enabled).toBe(
      true,
    );
    expect(resolved({ cli: { proxy: false }, env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'false' } }).enabled).toBe(
      false,
    );
  });

  it('command line beats config file', () => {
    expect(resolved({ cli: { proxy: true }, file: { withoutProxy: true } }).enabled).toBe(true);
    expect(resolved({ cli: { proxy: false }, file: { withoutProxy: false } }).enabled).toBe(false);
  });

  it('environment beats config file', () => {
    expect(
      resolved({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'false' }, file: { withoutProxy: true } }).enabled,
    ).toBe(true);
    expect(
      resolved({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'true' }, file: { withoutProxy: false } }).enabled,
    ).toBe(false);
  });

  it('config file beats the default', () => {
    expect(resolved({ file: { withoutProxy: true } }).enabled).toBe(false);
    expect(resolved({ file: { withoutProxy: false } }).enabled).toBe(true);
  });

  it('a cost limit turns it on when no source says on or off; a source that says off wins, and is marked (trial 30)', () => {
    const limited = { costLimited: true };
    expect(resolved(limited)).toMatchObject({ enabled: true, enabledFor: 'budget' });
    expect(resolved({ ...limited, cli: { proxy: true } })).not.toHaveProperty('enabledFor');
    expect(resolved({ ...limited, cli: { proxy: false } })).toMatchObject({
      enabled: false,
      offWithBudget: true,
    });
    expect(resolved({ ...limited, env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'true' } })).toMatchObject({
      enabled: false,
      offWithBudget: true,
    });
    expect(resolved({ ...limited, file: { withoutProxy: true } }).enabled).toBe(false);
    expect(resolved({ costLimited: false })).toMatchObject({ enabled: false });
    expect(resolved({ costLimited: false })).not.toHaveProperty('offWithBudget');
  });

  it('reads the environment flag case-blind, accepts 1/0, and treats empty as unset', () => {
    expect(resolved({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'FALSE' } }).enabled).toBe(true);
    expect(resolved({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: '0' } }).enabled).toBe(true);
    expect(
      resolved({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: '1' }, file: { withoutProxy: false } }).enabled,
    ).toBe(false);
    expect(
      resolved({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: '' }, file: { withoutProxy: false } }).enabled,
    ).toBe(true);
  });
});

describe('resolveProxyConfig: provider base URL', () => {
  const cliUrl = 'http://cli.example.test';
  const envUrl = 'http://env.example.test/prefix';
  const fileUrl = 'https://file.example.test';

  it('takes each source alone', () => {
    expect(resolved({ cli: { providerBaseUrl: cliUrl } }).providerBaseUrl).toBe(cliUrl);
    expect(resolved({ env: { SERVICE_RUNTIME_PROVIDER_BASE_URL: envUrl } }).providerBaseUrl).toBe(envUrl);
    expect(resolved({ file: { providerBaseUrl: fileUrl } }).providerBaseUrl).toBe(fileUrl);
  });

  it('command line > environment > config file', () => {
    const env = { SERVICE_RUNTIME_PROVIDER_BASE_URL: envUrl };
    const file = { providerBaseUrl: fileUrl };
    expect(resolved({ cli: { providerBaseUrl: cliUrl }, env, file }).providerBaseUrl).toBe(cliUrl);
    expect(resolved({ cli: { providerBaseUrl: cliUrl }, env }).providerBaseUrl).toBe(cliUrl);
    expect(resolved({ cli: { providerBaseUrl: cliUrl }, file }).providerBaseUrl).toBe(cliUrl);
    expect(resolved({ env, file }).providerBaseUrl).toBe(envUrl);
  });

  it('ANTHROPIC_BASE_URL: under SERVICE_RUNTIME_PROVIDER_BASE_URL, over the config file', () => {
    const anthropic = 'http://127.0.0.1:9302';
    expect(resolved({ env: { ANTHROPIC_BASE_URL: anthropic } }).providerBaseUrl).toBe(anthropic);
    expect(
      resolved({ env: { ANTHROPIC_BASE_URL: anthropic }, file: { providerBaseUrl: fileUrl } })
        .providerBaseUrl,
    ).toBe(anthropic);
    expect(
      resolved({ env: { ANTHROPIC_BASE_URL: anthropic, SERVICE_RUNTIME_PROVIDER_BASE_URL: envUrl } })
        .providerBaseUrl,
    ).toBe(envUrl);
    expect(
      resolved({ cli: { providerBaseUrl: cliUrl }, env: { ANTHROPIC_BASE_URL: anthropic } }).providerBaseUrl,
    ).toBe(cliUrl);
    expect(
      resolved({ env: { ANTHROPIC_BASE_URL: ' ' }, file: { providerBaseUrl: fileUrl } }).providerBaseUrl,
    ).toBe(fileUrl);
  });

  it('resolveProviderBaseUrl names the source it took', () => {
    const of = (env: NodeJS.ProcessEnv, file = {}) => resolveProviderBaseUrl({ cli: {}, env, file });
    expect(of({ ANTHROPIC_BASE_URL: 'http://a.test' })).toEqual({
      ok: true,
      value: 'http://a.test',
      source: 'ANTHROPIC_BASE_URL',
    });
    expect(of({}, { providerBaseUrl: fileUrl })).toMatchObject({ source: 'config file key providerBaseUrl' });
    expect(of({})).toMatchObject({ value: DEFAULT_PROVIDER_BASE_URL, source: 'default' });
    expect(of({ ANTHROPIC_BASE_URL: 'http://a.test/?token=MARKER' })).toEqual({
      ok: false,
      message: 'ANTHROPIC_BASE_URL must be an http(s) base URL: must not carry a query or fragment.',
    });
  });
});

describe('resolveProxyConfig: refusals', () => {
  it('refuses an environment flag that is not a boolean, naming the variable', () => {
    const message = refused({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'maybe' } });
    expect(message).toContain('SERVICE_RUNTIME_WITHOUT_PROXY');
    expect(message).toContain('"maybe"');
    expect(refused({ env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'constructor' } })).toContain('"constructor"');
  });

  it('refuses a bad value even where a higher source overrides it', () => {
    expect(refused({ cli: { proxy: true }, env: { SERVICE_RUNTIME_WITHOUT_PROXY: 'maybe' } })).toContain(
      'SERVICE_RUNTIME_WITHOUT_PROXY',
    );
    expect(
      refused({ cli: { providerBaseUrl: 'http://ok.test' }, file: { providerBaseUrl: 'nope' } }),
    ).toContain('providerBaseUrl');
  });

  it('refuses a non-boolean withoutProxy in the file', () => {
    expect(refused({ file: { withoutProxy: 'false' } })).toContain('withoutProxy');
  });

  it('refuses non-http URLs and malformed ones from every source', () => {
    expect(refused({ cli: { providerBaseUrl: 'ftp://files.test' } })).toMatch(/--provider-base-url.*http/);
    expect(refused({ env: { SERVICE_RUNTIME_PROVIDER_BASE_URL: 'not a url' } })).toContain(
      'SERVICE_RUNTIME_PROVIDER_BASE_URL',
    );
    expect(refused({ file: { providerBaseUrl: 'file:///etc/passwd' } })).toContain('providerBaseUrl');
    expect(refused({ file: { providerBaseUrl: 42 } })).toContain('providerBaseUrl');
    expect(refused({ cli: { providerBaseUrl: 'http://host.test/?q=1' } })).toContain('query');
  });

  it('refuses malformed proxy keys of the file', () => {
    expect(refused({ file: { proxyMiddleware: 'one.ts' } })).toContain('proxyMiddleware');
    expect(refused({ file: { proxyMiddleware: [{ path: 'x.ts' }] } })).toContain('proxyMiddleware');
    expect(refused({ file: { proxyIdleTimeoutMs: -1 } })).toContain('proxyIdleTimeoutMs');
    expect(refused({ file: { proxyMaxBodyBytes: 0 } })).toContain('proxyMaxBodyBytes');
    expect(refused({ file: { proxyDoubleMaxTokens: 'yes' } })).toContain('proxyDoubleMaxTokens');
    expect(refused({ file: { proxyMaxInFlightBytes: 0 } })).toContain('proxyMaxInFlightBytes');
    expect(refused({ file: { proxyLogBodies: 'no' } })).toContain('proxyLogBodies');
  });

  it('refuses an in-flight limit below the body limit: an allowed body could never be taken', () => {
    expect(refused({ file: { proxyMaxBodyBytes: 2048, proxyMaxInFlightBytes: 1024 } })).toMatch(
      /proxyMaxInFlightBytes \(1024\) must be at least proxyMaxBodyBytes \(2048\)/,
    );
  });
});

describe('resolveProxyConfig: file-only proxy keys', () => {
  it('normalizes middleware entries and reads the optional settings', () => {
    const value = resolved({
      file: {
        proxyMiddleware: ['./a.ts', { module: './b.ts', options: { tag: 'x' } }],
        proxyDoubleMaxTokens: true,
        proxyIdleTimeoutMs: 0,
        proxyMaxBodyBytes: 1024,
        proxyMaxInFlightBytes: 4096,
        proxyLogBodies: true,
        port: 4000, // another part's key: ignored here
      },
    });
    expect(value.middleware).toEqual([{ module: './a.ts' }, { module: './b.ts', options: { tag: 'x' } }]);
    expect(value.doubleMaxTokens).toBe(true);
    expect(value.idleTimeoutMs).toBe(0);
    expect(value.maxBodyBytes).toBe(1024);
    expect(value.maxInFlightBytes).toBe(4096);
    expect(value.logBodies).toBe(true);
  });

  it('raises the default in-flight limit to a body limit set above it', () => {
    const value = resolved({ file: { proxyMaxBodyBytes: 512 * 1024 * 1024 } });
    expect(value.maxInFlightBytes).toBe(512 * 1024 * 1024);
  });
});
