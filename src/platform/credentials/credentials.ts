/**
 * Which credential reaches the provider, read from the server's environment the same way by both
 * agents and the sentinels (docs/agents.md#what-the-agent-may-do). Pure: values never leave this module
 * except to the request that needs them; callers report names only.
 */

/** The variables a credential may come from, in the order they are tried. */
export const CREDENTIAL_VARS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
] as const;
export type CredentialVar = (typeof CREDENTIAL_VARS)[number];

/**
 * Every variable a provider key may come from besides a plan's own (apiKeyEnv): Claude's, Codex's,
 * Gemini CLI's and Google's. The server keeps them; what it starts gets only the one it needs.
 */
export const PROVIDER_KEY_VARS = [
  ...CREDENTIAL_VARS,
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
] as const;

/** The access token's variable: the server's alone, whatever it starts. */
export const TOKEN_VAR = 'RIBOSOME_TOKEN';

/**
 * The environment of the user's own commands (rig steps, gates): the server's as it is, since they
 * run as the user's scripts, but without the access token, the provider keys and `keyVars` (the
 * plan's key variables). Pure.
 */
export function withoutServerSecrets(
  env: NodeJS.ProcessEnv,
  keyVars: readonly string[] = [],
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of [...PROVIDER_KEY_VARS, TOKEN_VAR, ...keyVars]) delete out[name];
  return out;
}

/** What the built-in scripted provider accepts; sent only to it, never to a real provider. */
export const OFFLINE_KEY = 'ribosome-offline';

/** The beta a Claude subscription token (`claude setup-token`) needs on the Messages API. */
export const OAUTH_BETA = 'oauth-2025-04-20';

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** The credential variables that hold a value (names only). */
export function presentCredentials(env: NodeJS.ProcessEnv): CredentialVar[] {
  return CREDENTIAL_VARS.filter((name) => set(env[name]));
}

/**
 * How a Messages API call authenticates: `x-api-key` from ANTHROPIC_API_KEY, else a bearer token from
 * ANTHROPIC_AUTH_TOKEN (gateways) or CLAUDE_CODE_OAUTH_TOKEN (with its beta), else nothing.
 */
export function requestAuth(env: NodeJS.ProcessEnv): {
  apiKey?: string;
  authToken?: string;
  betas?: string[];
  source: CredentialVar | 'none';
} {
  const { ANTHROPIC_API_KEY: key, ANTHROPIC_AUTH_TOKEN: token, CLAUDE_CODE_OAUTH_TOKEN: oauth } = env;
  if (set(key)) return { apiKey: key, source: 'ANTHROPIC_API_KEY' };
  if (set(token)) return { authToken: token, source: 'ANTHROPIC_AUTH_TOKEN' };
  if (set(oauth)) return { authToken: oauth, betas: [OAUTH_BETA], source: 'CLAUDE_CODE_OAUTH_TOKEN' };
  return { source: 'none' };
}

/** How a call authenticates: what requestAuth gives, or a provider's own key variable (apiKeyEnv). */
export type RequestAuth = {
  apiKey?: string;
  authToken?: string;
  betas?: string[];
  /** The variable the credential came from (a name, never a value), or none. */
  source: string;
};

/**
 * How a call to one provider authenticates: with `apiKeyEnv`, that variable's value as `x-api-key`
 * and nothing else (the usual variables belong to the other providers); without it, requestAuth.
 */
export function providerAuth(env: NodeJS.ProcessEnv, apiKeyEnv?: string): RequestAuth {
  if (apiKeyEnv === undefined) return requestAuth(env);
  const key = env[apiKeyEnv];
  return set(key) ? { apiKey: key, source: apiKeyEnv } : { source: 'none' };
}

/**
 * An agent's environment for its provider: with `apiKeyEnv`, ANTHROPIC_API_KEY holds that variable's
 * value and the other credential variables are gone. Every provider key variable of the plan
 * (`keyVars`: each apiKeyEnv of its codons and sentinels, this one's own too) is gone as well, so no
 * agent sees another endpoint's key. Without either, `env` as it is.
 */
export function withProviderKey(
  env: NodeJS.ProcessEnv,
  apiKeyEnv?: string,
  keyVars: readonly string[] = [],
): NodeJS.ProcessEnv {
  if (apiKeyEnv === undefined && keyVars.length === 0) return env;
  const out: NodeJS.ProcessEnv = { ...env };
  // The usual variables are another provider's only when this one names its own.
  for (const name of keyVars) if (!isCredentialVar(name)) delete out[name];
  if (apiKeyEnv === undefined) return out;
  for (const name of CREDENTIAL_VARS) delete out[name];
  delete out[apiKeyEnv];
  const key = env[apiKeyEnv];
  if (set(key)) out.ANTHROPIC_API_KEY = key;
  return out;
}

const isCredentialVar = (name: string): name is CredentialVar =>
  (CREDENTIAL_VARS as readonly string[]).includes(name);

/** A provider on this machine (a local gateway, a test double): it may hold the credentials itself. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * Why a run cannot reach its provider, or undefined when it can: a provider off this machine with no
 * credential in the environment (the built-in scripted provider needs none). `claudeCode`: the caller
 * is Claude Code in its own configuration, which does not start without a credential even against a
 * gateway on this machine. `apiKeyOnly`: the advice names ANTHROPIC_API_KEY alone.
 */
export function credentialProblem(options: {
  providerUrl: string;
  scripted: boolean;
  env: NodeJS.ProcessEnv;
  claudeCode?: boolean;
  /** An agent among the callers that sends ANTHROPIC_API_KEY only (opencode): the advice names no other. */
  apiKeyOnly?: string;
}): string | undefined {
  if (options.scripted || presentCredentials(options.env).length > 0) return undefined;
  const origin = new URL(options.providerUrl).origin;
  if (!isLoopbackUrl(options.providerUrl)) {
    if (options.apiKeyOnly) {
      return `no credential for the provider ${origin}: set ANTHROPIC_API_KEY (${options.apiKeyOnly} sends no other credential), or run offline with --scripted-provider`;
    }
    return `no credential for the provider ${origin}: set ANTHROPIC_API_KEY (an API key), ANTHROPIC_AUTH_TOKEN (a gateway's bearer token) or CLAUDE_CODE_OAUTH_TOKEN (from \`claude setup-token\`), or run offline with --scripted-provider`;
  }
  if (!options.claudeCode) return undefined;
  return `no credential for the gateway ${origin}: Claude Code does not start without one ("Not logged in"), even against a gateway on this machine: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN to any value the gateway accepts (or use \`claudeConfig: user\` with your own \`claude login\`)`;
}
