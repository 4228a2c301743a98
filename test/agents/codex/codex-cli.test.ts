import { describe, expect, it } from 'vitest';
import {
  CODEX_DEFAULT_MODEL,
  codexArgs,
  codexEnv,
  codexHome,
  codexModel,
  maxRetries,
} from '../../../src/agents/codex/codex-cli.ts';
import { OFFLINE_KEY } from '../../../src/platform/credentials/credentials.ts';

const turn = {
  prompt: '-write hello.txt',
  model: 'gpt-6.2-sol',
  providerBaseUrl: 'http://127.0.0.1:4000/p/1/',
  mark: 'mark-1',
  maxRetries: 2,
};

describe('codexArgs', () => {
  it('a first turn: headless JSON, our provider on the Responses API, the mark in every command, the prompt after --', () => {
    expect(codexArgs(turn)).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '-m',
      'gpt-6.2-sol',
      '-c',
      'model_provider="ribosome"',
      '-c',
      'model_providers.ribosome.name="Ribosome"',
      '-c',
      'model_providers.ribosome.base_url="http://127.0.0.1:4000/p/1/v1"',
      '-c',
      'model_providers.ribosome.env_key="OPENAI_API_KEY"',
      '-c',
      'model_providers.ribosome.wire_api="responses"',
      '-c',
      'model_providers.ribosome.request_max_retries=2',
      '-c',
      'model_providers.ribosome.stream_max_retries=2',
      '-c',
      'model_providers.ribosome.stream_idle_timeout_ms=21600000',
      '-c',
      'shell_environment_policy.set.RIBOSOME_AGENT_RUN="mark-1"',
      '--',
      '-write hello.txt',
    ]);
  });

  it('a follow-up resumes the session, a continuation forks it: the id before the prompt', () => {
    const resumed = codexArgs({ ...turn, session: { id: 'thread-1', how: 'resume' } });
    expect(resumed.slice(0, 2)).toEqual(['exec', 'resume']);
    expect(resumed.slice(-3)).toEqual(['--', 'thread-1', '-write hello.txt']);
    expect(codexArgs({ ...turn, session: { id: 'thread-1', how: 'fork' } })[1]).toBe('fork');
  });

  it('system prompts: a replacement from a file, an addition as developer instructions (TOML-quoted)', () => {
    const args = codexArgs({
      ...turn,
      instructionsFile: '/s/i.md',
      appendSystemPrompt: 'Be "brief".\nAlways.',
    });
    expect(args).toContain('model_instructions_file="/s/i.md"');
    expect(args).toContain('developer_instructions="Be \\"brief\\".\\nAlways."');
  });
});

describe('codexModel', () => {
  it("keeps an OpenAI model; the engine's Claude default becomes Codex's own", () => {
    expect(codexModel('gpt-5.5')).toBe('gpt-5.5');
    expect(codexModel('claude-sonnet-4-5')).toBe(CODEX_DEFAULT_MODEL);
  });
});

describe('codexEnv: the key Codex reads (OPENAI_API_KEY)', () => {
  const local = 'http://127.0.0.1:4000';
  const remote = 'https://api.openai.com';

  it("passes the server's OPENAI_API_KEY", () => {
    expect(codexEnv({}, { providerBaseUrl: remote }, { OPENAI_API_KEY: 'sk-1' }).OPENAI_API_KEY).toBe('sk-1');
  });

  it("a plan provider's apiKeyEnv: its value as OPENAI_API_KEY, and not as Anthropic's", () => {
    const env = codexEnv(
      { ANTHROPIC_API_KEY: 'sk-2', OPENAI_API_KEY: 'sk-1' },
      { providerBaseUrl: remote, apiKeyEnv: 'MY_KEY' },
      { MY_KEY: 'sk-2', OPENAI_API_KEY: 'sk-1' },
    );
    expect(env.OPENAI_API_KEY).toBe('sk-2');
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
  });

  it('a placeholder for a provider on this machine without a key; none for a remote one', () => {
    expect(codexEnv({}, { providerBaseUrl: local }, {}).OPENAI_API_KEY).toBe(OFFLINE_KEY);
    expect(codexEnv({ OPENAI_API_KEY: '' }, { providerBaseUrl: remote }, {}).OPENAI_API_KEY).toBeUndefined();
  });
});

describe('codexHome and maxRetries', () => {
  it('isolated: inside the execution; user: CODEX_HOME, else ~/.codex', () => {
    expect(codexHome('/x/state', 'isolated', { CODEX_HOME: '/mine' })).toBe('/x/state/codex-home');
    expect(codexHome('/x/state', 'user', { CODEX_HOME: '/mine' })).toBe('/mine');
    expect(codexHome('/x/state', 'user', {})).toMatch(/\.codex$/);
  });

  it("RIBOSOME_CODEX_MAX_RETRIES: the codon's env over the server's, a bad value ignored", () => {
    expect(maxRetries({}, {})).toBe(2);
    expect(maxRetries({ RIBOSOME_CODEX_MAX_RETRIES: '0' }, { RIBOSOME_CODEX_MAX_RETRIES: '5' })).toBe(0);
    expect(maxRetries({}, { RIBOSOME_CODEX_MAX_RETRIES: '5' })).toBe(5);
    expect(maxRetries({}, { RIBOSOME_CODEX_MAX_RETRIES: 'many' })).toBe(2);
  });
});

describe('codexEnv: no other endpoint credential', () => {
  it("Claude's credentials in the base environment do not reach Codex", () => {
    const env = codexEnv(
      { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_AUTH_TOKEN: 'bearer', PATH: '/usr/bin' },
      { providerBaseUrl: 'https://api.openai.com' },
      { OPENAI_API_KEY: 'sk-1' },
    );
    expect(env).toEqual({ PATH: '/usr/bin', OPENAI_API_KEY: 'sk-1' });
  });
});
