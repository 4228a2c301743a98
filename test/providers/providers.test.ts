import { describe, expect, it } from 'vitest';
import { OAUTH_BETA, providerAuth, withProviderKey } from '../../src/credentials/credentials.ts';
import {
  agentProvider,
  keyVariables,
  missingProviderKeys,
  type ProviderUse,
  providerRoutes,
  targetOf,
  usualCredentialUsers,
} from '../../src/providers/providers.ts';

const use = (who: string, provider?: ProviderUse['provider'], userLogin = false): ProviderUse => ({
  who,
  ...(provider ? { provider } : {}),
  userLogin,
});

describe('providers', () => {
  const uses = [
    use('codon a'),
    use('codon b', { baseUrl: 'https://gw.example.com', apiKeyEnv: 'GW_KEY' }),
    use('sentinel s (codon b)', { baseUrl: 'https://cheap.example.com' }),
    use('codon c', { baseUrl: 'https://gw.example.com', apiKeyEnv: 'GW_KEY' }),
  ];

  it('one proxy route per distinct base URL; with the proxy on a provider is reached through its route', () => {
    const routes = providerRoutes(uses);
    expect(routes).toEqual(['https://gw.example.com', 'https://cheap.example.com']);
    const at = { serverUrl: 'https://api.anthropic.com', routes };
    expect(targetOf(undefined, at)).toEqual({ baseUrl: 'https://api.anthropic.com' });
    expect(targetOf(uses[1]!.provider, at)).toEqual({
      baseUrl: 'https://gw.example.com',
      apiKeyEnv: 'GW_KEY',
    });
    const proxied = { ...at, proxyUrl: 'http://127.0.0.1:9001' };
    expect(targetOf(undefined, proxied)).toEqual({ baseUrl: 'http://127.0.0.1:9001' });
    expect(targetOf(uses[1]!.provider, proxied)).toEqual({
      baseUrl: 'http://127.0.0.1:9001/p/0',
      apiKeyEnv: 'GW_KEY',
    });
    expect(targetOf(uses[2]!.provider, proxied)).toEqual({ baseUrl: 'http://127.0.0.1:9001/p/1' });
  });

  it('a remote provider whose key variable is unset is named with the variable, never a value', () => {
    expect(missingProviderKeys(uses, {})).toEqual([
      'codon b calls https://gw.example.com with the key in GW_KEY, which is not set: set GW_KEY, or run offline with --scripted-provider',
      'codon c calls https://gw.example.com with the key in GW_KEY, which is not set: set GW_KEY, or run offline with --scripted-provider',
    ]);
    expect(missingProviderKeys(uses, { GW_KEY: 'k' })).toEqual([]);
    expect(
      missingProviderKeys([use('codon l', { baseUrl: 'http://127.0.0.1:4000', apiKeyEnv: 'X' })], {}),
    ).toEqual([]);
  });

  it('the usual variables are needed by remote providers without apiKeyEnv, not by a Claude Code login', () => {
    const users = usualCredentialUsers(
      [...uses, use('codon d', undefined, true), use('codon e', { baseUrl: 'http://localhost:1' })],
      'https://api.anthropic.com',
    );
    expect(users.map((u) => [u.who, u.url])).toEqual([
      ['codon a', 'https://api.anthropic.com'],
      ['sentinel s (codon b)', 'https://cheap.example.com'],
    ]);
  });

  it('with apiKeyEnv only that key authenticates; without it the usual variables do', () => {
    const env = { ANTHROPIC_AUTH_TOKEN: 'tok', CLAUDE_CODE_OAUTH_TOKEN: 'oauth', GW_KEY: 'gw', OTHER: 'o' };
    expect(providerAuth(env, 'GW_KEY')).toEqual({ apiKey: 'gw', source: 'GW_KEY' });
    expect(providerAuth(env, 'MISSING')).toEqual({ source: 'none' });
    expect(providerAuth({ CLAUDE_CODE_OAUTH_TOKEN: 'o' })).toEqual({
      authToken: 'o',
      betas: [OAUTH_BETA],
      source: 'CLAUDE_CODE_OAUTH_TOKEN',
    });
    expect(withProviderKey(env, 'GW_KEY')).toEqual({ ANTHROPIC_API_KEY: 'gw', OTHER: 'o' });
    expect(withProviderKey(env)).toBe(env);
  });

  it("no agent's environment holds a key variable of the plan: its own arrives as ANTHROPIC_API_KEY only", () => {
    const keyVars = keyVariables(
      uses.concat(use('sentinel t', { baseUrl: 'http://127.0.0.1:1', apiKeyEnv: 'S_KEY' })),
    );
    expect(keyVars).toEqual(['GW_KEY', 'S_KEY']);
    const env = { ANTHROPIC_API_KEY: 'main', GW_KEY: 'gw', S_KEY: 's', OTHER: 'o' };
    // A codon of the server's provider keeps the usual variables, not the gateway's or the sentinel's key.
    expect(withProviderKey(env, undefined, keyVars)).toEqual({ ANTHROPIC_API_KEY: 'main', OTHER: 'o' });
    expect(withProviderKey(env, 'GW_KEY', keyVars)).toEqual({ ANTHROPIC_API_KEY: 'gw', OTHER: 'o' });
    expect(withProviderKey(env, 'S_KEY', keyVars)).toEqual({ ANTHROPIC_API_KEY: 's', OTHER: 'o' });
    // The usual variables named as a provider's key stay for the codons that use them.
    expect(withProviderKey(env, undefined, ['ANTHROPIC_API_KEY'])).toEqual(env);
    const at = { serverUrl: 'https://api.anthropic.com', routes: [], keyVars };
    expect(targetOf(undefined, at)).toEqual({ baseUrl: 'https://api.anthropic.com', keyVars });
    expect(agentProvider(targetOf(uses[1]!.provider, at))).toEqual({
      providerBaseUrl: 'https://gw.example.com',
      apiKeyEnv: 'GW_KEY',
      keyVars,
    });
  });
});
