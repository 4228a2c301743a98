import { describe, expect, it } from 'vitest';
import { withAgentKey } from '../../src/agents/provider-env.ts';
import { OFFLINE_KEY } from '../../src/platform/credentials/credentials.ts';

describe("withAgentKey: an agent CLI's own key variable", () => {
  const local = 'http://127.0.0.1:4000/p/1';
  const remote = 'https://api.openai.com';

  it('the key when it holds a value, a provider on this machine or not; the rest of the environment kept', () => {
    const env = { PATH: '/usr/bin', OPENAI_API_KEY: 'old' };
    expect(withAgentKey(env, 'OPENAI_API_KEY', 'sk-1', remote)).toEqual({
      PATH: '/usr/bin',
      OPENAI_API_KEY: 'sk-1',
    });
    expect(withAgentKey(env, 'OPENAI_API_KEY', 'sk-1', local).OPENAI_API_KEY).toBe('sk-1');
    expect(env.OPENAI_API_KEY).toBe('old');
  });

  it('without a key (unset, empty or blank): a placeholder for a provider on this machine, else unset', () => {
    for (const key of [undefined, '', '  ']) {
      expect(withAgentKey({ GEMINI_API_KEY: '' }, 'GEMINI_API_KEY', key, local).GEMINI_API_KEY).toBe(
        OFFLINE_KEY,
      );
      expect(withAgentKey({ GEMINI_API_KEY: '' }, 'GEMINI_API_KEY', key, remote)).toEqual({});
    }
  });
});
