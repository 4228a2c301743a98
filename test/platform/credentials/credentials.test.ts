import { describe, expect, it } from 'vitest';
import {
  credentialProblem,
  isLoopbackUrl,
  OAUTH_BETA,
  presentCredentials,
  requestAuth,
  withoutServerSecrets,
} from '../../../src/platform/credentials/credentials.ts';

describe('credentials', () => {
  it('an API key first, then a gateway token, then a subscription token with its beta; blanks are absent', () => {
    expect(requestAuth({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_AUTH_TOKEN: 't' })).toEqual({
      apiKey: 'k',
      source: 'ANTHROPIC_API_KEY',
    });
    expect(requestAuth({ ANTHROPIC_API_KEY: ' ', ANTHROPIC_AUTH_TOKEN: 't' })).toEqual({
      authToken: 't',
      source: 'ANTHROPIC_AUTH_TOKEN',
    });
    expect(requestAuth({ CLAUDE_CODE_OAUTH_TOKEN: 'o' })).toEqual({
      authToken: 'o',
      betas: [OAUTH_BETA],
      source: 'CLAUDE_CODE_OAUTH_TOKEN',
    });
    expect(requestAuth({})).toEqual({ source: 'none' });
    expect(presentCredentials({ ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: 'o' })).toEqual([
      'CLAUDE_CODE_OAUTH_TOKEN',
    ]);
  });

  it('a provider off this machine with no credential is a problem naming what to set, never a value', () => {
    const problem = credentialProblem({
      providerUrl: 'https://api.anthropic.com',
      scripted: false,
      env: { ANTHROPIC_API_KEY: '' },
    });
    expect(problem).toMatch(/ANTHROPIC_API_KEY.*ANTHROPIC_AUTH_TOKEN.*CLAUDE_CODE_OAUTH_TOKEN/);
    expect(problem).toContain('https://api.anthropic.com');
    expect(
      credentialProblem({
        providerUrl: 'https://api.anthropic.com',
        scripted: false,
        env: { ANTHROPIC_AUTH_TOKEN: 't' },
      }),
    ).toBeUndefined();
    // The scripted provider needs none; a local gateway may hold the credentials itself.
    expect(credentialProblem({ providerUrl: 'https://x.example', scripted: true, env: {} })).toBeUndefined();
    expect(
      credentialProblem({ providerUrl: 'http://127.0.0.1:4000', scripted: false, env: {} }),
    ).toBeUndefined();
  });

  it('for an agent that sends ANTHROPIC_API_KEY only (opencode) the advice names that variable alone', () => {
    const problem = credentialProblem({
      providerUrl: 'https://gw.example.com',
      scripted: false,
      env: {},
      apiKeyOnly: 'opencode',
    });
    expect(problem).toBe(
      'no credential for the provider https://gw.example.com: set ANTHROPIC_API_KEY (opencode sends no other credential), or run offline with --scripted-provider',
    );
  });

  it('Claude Code in its own configuration needs one even for a local gateway: any value it accepts', () => {
    const local = { providerUrl: 'http://127.0.0.1:4000', scripted: false, claudeCode: true };
    expect(credentialProblem({ ...local, env: {} })).toMatch(
      /^no credential for the gateway http:\/\/127\.0\.0\.1:4000: Claude Code does not start without one .*set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN to any value the gateway accepts/,
    );
    expect(credentialProblem({ ...local, env: { ANTHROPIC_AUTH_TOKEN: 'x' } })).toBeUndefined();
    expect(credentialProblem({ ...local, scripted: true, env: {} })).toBeUndefined();
  });

  it('knows loopback addresses', () => {
    expect(
      ['http://localhost:1', 'http://127.0.0.1', 'http://127.9.9.9:80', 'http://[::1]:8080'].map(
        isLoopbackUrl,
      ),
    ).toEqual([true, true, true, true]);
    expect(['https://api.anthropic.com', 'http://10.0.0.1', 'not a url'].map(isLoopbackUrl)).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe("withoutServerSecrets: the user's own commands (rig steps, gates)", () => {
  it("keep the server's environment but the access token, the provider keys and the plan's key variables", () => {
    const env = withoutServerSecrets(
      {
        PATH: '/usr/bin',
        JAVA_HOME: '/opt/java',
        SSH_AUTH_SOCK: '/tmp/agent.sock',
        RIBOSOME_TOKEN: 'token-value-123',
        ANTHROPIC_API_KEY: 'a',
        ANTHROPIC_AUTH_TOKEN: 'b',
        CLAUDE_CODE_OAUTH_TOKEN: 'c',
        OPENAI_API_KEY: 'd',
        GEMINI_API_KEY: 'e',
        TEAM_KEY: 'f',
      },
      ['TEAM_KEY'],
    );
    expect(env).toEqual({ PATH: '/usr/bin', JAVA_HOME: '/opt/java', SSH_AUTH_SOCK: '/tmp/agent.sock' });
  });
});
