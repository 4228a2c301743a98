import { afterEach, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { framesOf, postJson } from './http.ts';

let provider: MockProvider | undefined;
afterEach(async () => {
  await provider?.stop();
  provider = undefined;
});

describe('one script, every API', () => {
  it('serves the same track to an Anthropic request and a Responses request, each in its own words', async () => {
    const write = { file_path: 'hello.txt', content: 'hi\n' };
    provider = await startMockProvider({
      script: {
        tracks: [
          {
            name: 'hello',
            match: { firstUser: 'Create hello.txt' },
            turns: [
              { content: [{ text: 'Writing it.' }, { tool_use: { name: 'Write', input: write } }] },
              { content: [{ text: 'Done: hello.txt exists.' }] },
            ],
          },
        ],
        turns: [{ content: [{ text: 'default track' }] }],
      },
    });
    const p = provider;

    const anthropic = await postJson(`${p.url}/v1/messages`, {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Create hello.txt please' }],
    });
    expect(await anthropic.json()).toMatchObject({
      type: 'message',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Writing it.' },
        { type: 'tool_use', name: 'Write', input: write },
      ],
    });

    const responses = await framesOf(
      await postJson(`${p.url}/v1/responses`, {
        model: 'gpt-5-codex',
        input: 'Create hello.txt please',
        stream: true,
      }),
    );
    expect(responses.at(-1)?.data.response).toMatchObject({
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Done: hello.txt exists.' }] }],
    });

    const gemini = await postJson(`${p.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'Something else' }] }],
    });
    expect(await gemini.json()).toMatchObject({
      candidates: [{ content: { parts: [{ text: 'default track' }] } }],
    });

    expect(p.requests.map((r) => [r.api, r.track, r.position])).toEqual([
      ['anthropic', 'hello', 0],
      ['openai-responses', 'hello', 1],
      ['gemini', 'default', 0],
    ]);
  });

  it('fails an Anthropic stream with an error event when the error turn says inStream', async () => {
    provider = await startMockProvider({ script: { turns: [{ error: { status: 529, inStream: true } }] } });
    const res = await postJson(`${provider.url}/v1/messages`, {
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    const frames = await framesOf(res);
    expect(frames.map((frame) => frame.event)).toEqual(['message_start', 'error']);
    expect(frames[1]?.data).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Scripted 529 overloaded_error' },
    });
  });
});
