import { describe, expect, it } from 'vitest';
import {
  denyEdits,
  opencodeArgs,
  opencodeConfig,
  opencodeDirs,
  opencodeEnv,
} from '../../../src/agents/opencode/opencode-cli.ts';

const dirs = opencodeDirs('/x/state/opencode-home');

describe('opencode: how it is run', () => {
  it('runs headless with JSON events, the anthropic provider model, no title request, and forks only a continuation', () => {
    expect(opencodeArgs({ model: 'claude-sonnet-4-5' })).toEqual([
      'run',
      '--format',
      'json',
      '--model',
      'anthropic/claude-sonnet-4-5',
      '--auto',
      '--thinking',
      '--title',
      '',
    ]);
    expect(
      opencodeArgs({ model: 'anthropic/m', resume: { sessionId: 'ses_1', fork: true } }).slice(4),
    ).toEqual(['anthropic/m', '--auto', '--thinking', '--title', '', '--session', 'ses_1', '--fork']);
    expect(opencodeArgs({ model: 'm', resume: { sessionId: 'ses_1', fork: false } }).slice(-2)).toEqual([
      '--session',
      'ses_1',
    ]);
  });

  it('points the anthropic provider at the codon provider root, names the model, keeps the key out of the file', () => {
    const config = opencodeConfig({
      providerBaseUrl: 'http://127.0.0.1:4000/p/1/',
      model: 'claude-new-9',
      isolated: true,
    });
    expect(config).toEqual({
      $schema: 'https://opencode.ai/config.json',
      provider: {
        anthropic: {
          options: { baseURL: 'http://127.0.0.1:4000/p/1/v1', apiKey: '{env:ANTHROPIC_API_KEY}' },
          models: { 'claude-new-9': {} },
        },
      },
      model: 'anthropic/claude-new-9',
      small_model: 'anthropic/claude-new-9',
      enabled_providers: ['anthropic'],
      autoupdate: false,
      share: 'disabled',
    });
    // The user's configuration: their providers and login stay; only the codon's endpoint and model are set.
    const user = opencodeConfig({
      providerBaseUrl: 'https://gw.example',
      model: 'm',
      isolated: false,
    });
    expect(user).not.toHaveProperty('enabled_providers');
    expect(user.provider).toEqual({
      anthropic: { options: { baseURL: 'https://gw.example/v1' }, models: { m: {} } },
    });
  });

  it('maps the system prompts: systemPrompt replaces its build agent prompt, appendSystemPrompt is an instructions file', () => {
    const config = opencodeConfig({
      providerBaseUrl: 'http://h',
      model: 'm',
      isolated: true,
      systemPrompt: 'You are terse.',
      instructionsFile: dirs.instructionsFile,
    });
    expect(config.agent).toEqual({ build: { prompt: 'You are terse.' } });
    expect(config.instructions).toEqual(['/x/state/opencode-home/append-system-prompt.md']);
  });

  it('denies its edit tools the data directory (its link and where it leads), however far up its worktree is', () => {
    expect(denyEdits(['/e/agentRoot/ribosome-data', '/data'])).toEqual({
      'e/agentRoot/ribosome-data': 'deny',
      'e/agentRoot/ribosome-data/*': 'deny',
      'agentRoot/ribosome-data': 'deny',
      'agentRoot/ribosome-data/*': 'deny',
      'ribosome-data': 'deny',
      'ribosome-data/*': 'deny',
      data: 'deny',
      'data/*': 'deny',
    });
    const config = opencodeConfig({
      providerBaseUrl: 'http://h',
      model: 'm',
      readOnlyDirs: ['/e/agentRoot/ribosome-data'],
      isolated: true,
    });
    expect(config.permission).toEqual({ edit: denyEdits(['/e/agentRoot/ribosome-data']) });
    expect(opencodeConfig({ providerBaseUrl: 'http://h', model: 'm', isolated: true })).not.toHaveProperty(
      'permission',
    );
  });

  it('isolated: its own home, XDG directories and config file, no project config; user: the config as content that wins', () => {
    const quiet = {
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
    };
    expect(opencodeEnv({ dirs, isolated: true, config: {} })).toEqual({
      ...quiet,
      HOME: '/x/state/opencode-home',
      XDG_CONFIG_HOME: '/x/state/opencode-home/config',
      XDG_DATA_HOME: '/x/state/opencode-home/data',
      XDG_STATE_HOME: '/x/state/opencode-home/state',
      XDG_CACHE_HOME: '/x/state/opencode-home/cache',
      OPENCODE_CONFIG: '/x/state/opencode-home/opencode.json',
      OPENCODE_DISABLE_PROJECT_CONFIG: '1',
    });
    expect(opencodeEnv({ dirs, isolated: false, config: { model: 'anthropic/m' } })).toEqual({
      ...quiet,
      OPENCODE_CONFIG_CONTENT: '{"model":"anthropic/m"}',
    });
  });
});
