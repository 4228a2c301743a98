import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, stopHarnesses, toolEvents } from './helpers.ts';

afterEach(stopHarnesses);

/** Sentinels authenticate like the built-in agent: the same variables, the same headers. */

const plan = `name: t
codons:
  - id: build
    prompt: Build it.
    sentinels:
      - id: watch
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [assistant.action] }
`;

async function headersOfOneCall(env: NodeJS.ProcessEnv) {
  const h = await startHarness({
    plan,
    script: {
      tracks: [
        {
          name: 'watch',
          match: { header: { 'x-ribosome-sentinel': 'watch' } },
          whenExhausted: { content: [{ text: 'ok' }] },
        },
      ],
    },
    hooks: { env },
  });
  const codon = h.codon('build');
  await h.hooks.beforeAgent(codon, 'run-1');
  const [call] = toolEvents('build', 1);
  await h.publish(call.type, call.data);
  await h.hooks.afterAgent(codon, 'run-1');
  expect(h.of('sentinel.output')).toHaveLength(1);
  return h.provider.requests[0]!.headers;
}

describe('sentinel credentials', () => {
  it('a subscription token goes as a bearer with the oauth beta', async () => {
    const headers = await headersOfOneCall({ CLAUDE_CODE_OAUTH_TOKEN: 'oauth-marker' });
    expect(headers.authorization).toBe('Bearer oauth-marker');
    expect(headers['anthropic-beta']).toBe('oauth-2025-04-20');
    expect(headers['x-api-key']).toBeUndefined();
  });

  it('an API key goes as x-api-key, without the beta', async () => {
    const headers = await headersOfOneCall({ ANTHROPIC_API_KEY: 'key-marker', CLAUDE_CODE_OAUTH_TOKEN: 'o' });
    expect(headers['x-api-key']).toBe('key-marker');
    expect(headers['anthropic-beta']).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
  });
});
