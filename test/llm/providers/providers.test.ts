import { describe, expect, it } from 'vitest';
import {
  agentKeyProblems,
  agentProvider,
  agentProviderUrl,
  blockedPortProblems,
  keyVariables,
  missingProviderKeys,
  type ProviderUse,
  providerRoutes,
  targetOf,
  unusableCredentialProblems,
  usualCredentialUsers,
  vendorDefaultProblems,
} from '../../../src/llm/providers/providers.ts';
import { OAUTH_BETA, providerAuth, withProviderKey } from '../../../src/platform/credentials/credentials.ts';

const use = (
  who: string,
  provider?: ProviderUse['provider'],
  userLogin = false,
  kind: ProviderUse['kind'] = userLogin ? 'claude-code' : 'builtin',
): ProviderUse => ({
  who,
  ...(provider ? { provider } : {}),
  kind,
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
    const routes = providerRoutes(uses, 'https://api.anthropic.com');
    expect(routes).toEqual(['https://gw.example.com', 'https://cheap.example.com']);
    const at = { serverUrl: 'https://api.anthropic.com', routes };
    expect(targetOf(uses[0]!, at)).toEqual({ baseUrl: 'https://api.anthropic.com' });
    expect(targetOf(uses[1]!, at)).toEqual({
      baseUrl: 'https://gw.example.com',
      apiKeyEnv: 'GW_KEY',
    });
    const proxied = { ...at, proxyUrl: 'http://127.0.0.1:9001' };
    expect(targetOf(uses[0]!, proxied)).toEqual({ baseUrl: 'http://127.0.0.1:9001' });
    expect(targetOf(uses[1]!, proxied)).toEqual({
      baseUrl: 'http://127.0.0.1:9001/p/0',
      apiKeyEnv: 'GW_KEY',
    });
    expect(targetOf(uses[2]!, proxied)).toEqual({ baseUrl: 'http://127.0.0.1:9001/p/1' });
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

  it("Gemini CLI reads GEMINI_API_KEY, not the usual variables; the default provider becomes Google's for it", () => {
    const gemini = (who: string, provider?: ProviderUse['provider']) => use(who, provider, false, 'gemini');
    const mixed = [
      gemini('codon g'),
      gemini('codon k', { baseUrl: 'https://gw.example.com', apiKeyEnv: 'TEAM_KEY' }),
      gemini('codon l', { baseUrl: 'http://127.0.0.1:4000' }),
      use('codon a'),
    ];
    expect(usualCredentialUsers(mixed, 'https://api.anthropic.com').map((u) => u.who)).toEqual(['codon a']);
    expect(agentKeyProblems(mixed, 'https://api.anthropic.com', { ANTHROPIC_API_KEY: 'k' })).toEqual([
      'codon g (gemini) calls https://generativelanguage.googleapis.com with the key in GEMINI_API_KEY, which is not set: set GEMINI_API_KEY, give the codon a provider with its apiKeyEnv, or run offline with --scripted-provider',
    ]);
    expect(agentKeyProblems(mixed, 'https://api.anthropic.com', { GEMINI_API_KEY: 'g' })).toEqual([]);
    // The server's provider on this machine (the scripted one, a gateway): a placeholder will do.
    expect(agentKeyProblems(mixed, 'http://127.0.0.1:9', {})).toEqual([]);
    expect(agentProviderUrl('gemini', 'https://api.anthropic.com')).toBe(
      'https://generativelanguage.googleapis.com',
    );
    expect(agentProviderUrl('gemini', 'http://127.0.0.1:9001/p/0')).toBe('http://127.0.0.1:9001/p/0');
    // Gemini CLI calls with Node's fetch: the ports fetch refuses are refused for it too.
    expect(
      blockedPortProblems([gemini('codon s')], 'http://127.0.0.1:6000', { enabled: false }),
    ).toHaveLength(1);
  });

  it('Claude Code in its own configuration needs a credential even for a gateway on this machine', () => {
    const local = 'http://127.0.0.1:9402';
    const cc = (who: string, provider?: ProviderUse['provider']) => use(who, provider, false, 'claude-code');
    const users = usualCredentialUsers(
      [
        cc('codon cc'),
        use('codon b'),
        use('codon login', undefined, true),
        use('sentinel s', undefined, false, 'sentinel'),
      ],
      local,
    );
    expect(users.map((u) => [u.who, u.url, u.local])).toEqual([['codon cc', local, true]]);
    expect(missingProviderKeys([cc('codon k', { baseUrl: local, apiKeyEnv: 'GW_KEY' })], {})).toEqual([
      'codon k calls http://127.0.0.1:9402 with the key in GW_KEY, which is not set: Claude Code does not start without a credential, even against a gateway on this machine: set GW_KEY to any value the gateway accepts',
    ]);
    expect(
      missingProviderKeys([cc('codon k', { baseUrl: local, apiKeyEnv: 'GW_KEY' })], { GW_KEY: 'x' }),
    ).toEqual([]);
  });

  it('Codex needs OPENAI_API_KEY for a remote provider without apiKeyEnv, not the usual variables', () => {
    const codex = (who: string, provider?: ProviderUse['provider']) => use(who, provider, false, 'codex');
    const uses = [
      codex('codon x'),
      codex('codon local', { baseUrl: 'http://127.0.0.1:4000' }),
      codex('codon gw', { baseUrl: 'https://gw.example.com', apiKeyEnv: 'GW_KEY' }),
    ];
    expect(usualCredentialUsers(uses, 'https://api.anthropic.com')).toEqual([]);
    // The server's default provider is Anthropic's: Codex goes to OpenAI's.
    expect(agentKeyProblems(uses, 'https://api.anthropic.com', { ANTHROPIC_API_KEY: 'a' })).toEqual([
      'codon x (codex) calls https://api.openai.com with the key in OPENAI_API_KEY, which is not set: set OPENAI_API_KEY, give the codon a provider with its apiKeyEnv, or run offline with --scripted-provider',
    ]);
    expect(agentKeyProblems(uses, 'https://api.anthropic.com', { OPENAI_API_KEY: 'k' })).toEqual([]);
    // On this machine (the scripted provider) it gets a placeholder.
    expect(agentKeyProblems(uses, 'http://127.0.0.1:5000', {})).toEqual([]);
    expect(agentKeyProblems([use('codon b')], 'https://api.anthropic.com', {})).toEqual([]);
  });

  it("the server's default (Anthropic) provider becomes OpenAI's for Codex; any other stays", () => {
    expect(agentProviderUrl('codex', 'https://api.anthropic.com/')).toBe('https://api.openai.com');
    expect(agentProviderUrl('codex', 'http://127.0.0.1:9001/p/0')).toBe('http://127.0.0.1:9001/p/0');
    expect(agentProviderUrl('claude-code', 'https://api.anthropic.com')).toBe('https://api.anthropic.com');
  });

  it("with the proxy on, Codex and Gemini CLI on the server's default provider get their vendor's as a route of their own", () => {
    const mixed = [
      use('codon a'),
      use('codon x', undefined, false, 'codex'),
      use('codon g', undefined, false, 'gemini'),
      use('codon o', undefined, false, 'opencode'),
      use('codon y', undefined, false, 'codex'),
      use('codon p', { baseUrl: 'https://gw.example.com' }, false, 'codex'),
      use('sentinel s (codon x)', undefined, false, 'sentinel'),
    ];
    const anthropic = 'https://api.anthropic.com';
    const routes = providerRoutes(mixed, anthropic, {});
    expect(routes).toEqual([
      'https://api.openai.com',
      'https://generativelanguage.googleapis.com',
      'https://gw.example.com',
    ]);
    const proxied = { serverUrl: anthropic, proxyUrl: 'http://127.0.0.1:9001', routes, env: {} };
    // No Codex or Gemini request reaches the plain route (Anthropic's); the others' do.
    expect(mixed.map((u) => targetOf(u, proxied).baseUrl)).toEqual([
      'http://127.0.0.1:9001',
      'http://127.0.0.1:9001/p/0',
      'http://127.0.0.1:9001/p/1',
      'http://127.0.0.1:9001',
      'http://127.0.0.1:9001/p/0',
      'http://127.0.0.1:9001/p/2',
      'http://127.0.0.1:9001',
    ]);
    // Without the proxy each calls its vendor directly.
    const direct = { serverUrl: anthropic, routes, env: {} };
    expect(targetOf(mixed[1]!, direct).baseUrl).toBe('https://api.openai.com');
    expect(targetOf(mixed[2]!, direct).baseUrl).toBe('https://generativelanguage.googleapis.com');
    // A server provider the user gave (a gateway may speak every API) is every agent's.
    expect(providerRoutes(mixed, 'https://gw.example.com', {})).toEqual(['https://gw.example.com']);
    const gateway = { serverUrl: 'https://llm.example.com', proxyUrl: 'http://127.0.0.1:9001', env: {} };
    expect(targetOf(mixed[1]!, { ...gateway, routes: ['https://gw.example.com'] }).baseUrl).toBe(
      'http://127.0.0.1:9001',
    );
    // The scripted provider (on this machine) serves every API: no vendor route.
    expect(providerRoutes(mixed.slice(0, 3), 'http://127.0.0.1:5000', {})).toEqual([]);
    // The vendor's default may be replaced (tests: a server standing for the vendor).
    const env = { RIBOSOME_CODEX_PROVIDER_URL: 'http://127.0.0.1:7001' };
    expect(providerRoutes(mixed.slice(0, 2), anthropic, env)).toEqual(['http://127.0.0.1:7001']);
    expect(agentProviderUrl('codex', anthropic, env)).toBe('http://127.0.0.1:7001');
    expect(vendorDefaultProblems(env)).toEqual([]);
    expect(vendorDefaultProblems({ RIBOSOME_GEMINI_PROVIDER_URL: 'ftp://x' })).toEqual([
      'RIBOSOME_GEMINI_PROVIDER_URL must be an http(s) base URL: must use http or https, got ftp',
    ]);
  });

  it('Codex (not a Node fetch client) reaches any port', () => {
    const codex = use('codon x', undefined, false, 'codex');
    expect(blockedPortProblems([codex], 'http://127.0.0.1:6000', { enabled: false })).toEqual([]);
  });

  it('a provider on a port fetch refuses is named for the built-in agent and sentinels, not Claude Code', () => {
    const mixed = [
      use('codon a'),
      use('codon cc', undefined, false, 'claude-code'),
      use('sentinel s', { baseUrl: 'http://127.0.0.1:10080' }, false, 'sentinel'),
    ];
    expect(blockedPortProblems(mixed, 'http://127.0.0.1:6000', { enabled: false })).toEqual([
      `codon a calls http://127.0.0.1:6000, but port 6000 is one Node's fetch refuses to connect to ("bad port"): the built-in agent and the sentinels cannot reach it; run the provider on another port (or start the proxy with --proxy, which reaches it)`,
      expect.stringMatching(/^sentinel s calls http:\/\/127\.0\.0\.1:10080, but port 10080 is one/),
    ]);
    expect(blockedPortProblems(mixed, 'http://127.0.0.1:6001', { enabled: false })).toHaveLength(1);
    expect(blockedPortProblems([mixed[1]!], 'http://127.0.0.1:6000', { enabled: false })).toEqual([]);
    // With the proxy on, the proxy reaches any port; its own port must be one fetch takes.
    expect(blockedPortProblems(mixed, 'http://127.0.0.1:6000', { enabled: true, port: 4001 })).toEqual([]);
    expect(blockedPortProblems(mixed, 'http://127.0.0.1:6000', { enabled: true, port: 6000 })).toEqual([
      expect.stringMatching(
        /^the proxy would listen on port 6000 \(the main port \+ 1\), but .*; choose another --port$/,
      ),
    ]);
  });

  it('opencode: any port (Bun fetch), ANTHROPIC_API_KEY alone authenticates it, its user configuration may hold a login', () => {
    const oc = (who: string, provider?: ProviderUse['provider']) => use(who, provider, false, 'opencode');
    expect(blockedPortProblems([oc('codon o')], 'http://127.0.0.1:6000', { enabled: false })).toEqual([]);
    const remote = 'https://api.anthropic.com';
    const mixed = [oc('codon o'), use('codon b'), oc('codon k', { baseUrl: remote, apiKeyEnv: 'K' })];
    expect(unusableCredentialProblems(mixed, remote, { ANTHROPIC_AUTH_TOKEN: 't' })).toEqual([
      "codon o runs opencode, which authenticates with ANTHROPIC_API_KEY only: ANTHROPIC_AUTH_TOKEN is set, which it does not send; set ANTHROPIC_API_KEY (or the provider's apiKeyEnv)",
    ]);
    expect(
      unusableCredentialProblems(mixed, remote, { ANTHROPIC_AUTH_TOKEN: 't', ANTHROPIC_API_KEY: 'k' }),
    ).toEqual([]);
    // None set: the usual message names every variable; a gateway on this machine needs none.
    expect(unusableCredentialProblems(mixed, remote, {})).toEqual([]);
    expect(
      unusableCredentialProblems(mixed, 'http://127.0.0.1:4000', { CLAUDE_CODE_OAUTH_TOKEN: 'o' }),
    ).toEqual([]);
    expect(usualCredentialUsers([oc('codon o')], 'http://127.0.0.1:4000')).toEqual([]);
    // With the user's configuration, their `opencode auth login` may do.
    expect(usualCredentialUsers([use('codon u', undefined, true, 'opencode')], remote)).toEqual([]);
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
    expect(targetOf(uses[0]!, at)).toEqual({ baseUrl: 'https://api.anthropic.com', keyVars });
    expect(agentProvider(targetOf(uses[1]!, at))).toEqual({
      providerBaseUrl: 'https://gw.example.com',
      apiKeyEnv: 'GW_KEY',
      keyVars,
    });
  });
});
