import { describe, expect, it } from 'vitest';
import { agentBaseEnv, passedToAgents } from '../../src/agents/agent-env.ts';
import { providerEnv } from '../../src/agents/provider-env.ts';

/** A server's environment as a user's shell and a run leave it. */
const SERVER: NodeJS.ProcessEnv = {
  PATH: '/usr/bin',
  HOME: '/home/u',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TERM: 'xterm',
  HTTPS_PROXY: 'http://proxy.example:3128',
  NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
  CLAUDE_CODE_MAX_RETRIES: '0',
  ANTHROPIC_MODEL: 'claude-x',
  CODEX_HOME: '/home/u/.codex',
  GEMINI_CLI_NO_RELAUNCH: 'true',
  RIBOSOME_AGENT_MAX_RETRIES: '1',
  ANTHROPIC_API_KEY: 'sk-ant-server',
  OPENAI_API_KEY: 'sk-openai-server',
  GEMINI_API_KEY: 'gemini-server',
  RIBOSOME_TOKEN: 'token-of-the-server',
  SENTINEL_KEY: 'sentinel-key-value',
  SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
  AWS_SECRET_ACCESS_KEY: 'aws',
  NODE_OPTIONS: '--inspect',
  CLAUDECODE: '1',
  PWD: '/somewhere',
};

describe("an agent's environment is built for it", () => {
  it("takes the machine's basics, the proxy and CA settings and each CLI's knobs; nothing else", () => {
    expect(agentBaseEnv(SERVER)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TERM: 'xterm',
      HTTPS_PROXY: 'http://proxy.example:3128',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
      CLAUDE_CODE_MAX_RETRIES: '0',
      ANTHROPIC_MODEL: 'claude-x',
      CODEX_HOME: '/home/u/.codex',
      GEMINI_CLI_NO_RELAUNCH: 'true',
      RIBOSOME_AGENT_MAX_RETRIES: '1',
    });
  });

  it('a knob whose name reads as a credential is not taken by its prefix', () => {
    for (const name of [
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_CODE_OAUTH_TOKEN',
      'GEMINI_API_KEY',
    ])
      expect(passedToAgents(name), name).toBe(false);
  });

  it("a plan's key variable is never taken, whatever its name", () => {
    expect(agentBaseEnv({ ANTHROPIC_GATEWAY: 'gw-key-value' }, ['ANTHROPIC_GATEWAY'])).toEqual({});
  });

  it("the builtin and Claude Code get the server's Claude credentials, never the token or another provider's key", () => {
    const env = providerEnv({ providerBaseUrl: 'http://127.0.0.1:4000', keyVars: ['SENTINEL_KEY'] }, SERVER);
    expect(env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:4000');
    expect(env.ANTHROPIC_API_KEY).toBe('sk-ant-server');
    for (const name of [
      'RIBOSOME_TOKEN',
      'OPENAI_API_KEY',
      'GEMINI_API_KEY',
      'SENTINEL_KEY',
      'SSH_AUTH_SOCK',
    ])
      expect(env[name], name).toBeUndefined();
  });

  it("a provider's apiKeyEnv: its value alone, as ANTHROPIC_API_KEY", () => {
    const env = providerEnv(
      { providerBaseUrl: 'https://gw.example', apiKeyEnv: 'TEAM_KEY', keyVars: ['TEAM_KEY', 'SENTINEL_KEY'] },
      { ...SERVER, TEAM_KEY: 'team-key-value', ANTHROPIC_AUTH_TOKEN: 'bearer-value' },
    );
    expect(env.ANTHROPIC_API_KEY).toBe('team-key-value');
    for (const name of ['TEAM_KEY', 'SENTINEL_KEY', 'ANTHROPIC_AUTH_TOKEN', 'RIBOSOME_TOKEN'])
      expect(env[name], name).toBeUndefined();
  });
});
