import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import {
  type MockProvider,
  type RecordedRequest,
  startMockProvider,
} from '../../../src/llm/mock-provider/server.ts';
import { firstFrames, framesOf, postJson } from './http.ts';

let provider: MockProvider | undefined;
afterEach(async () => {
  await provider?.stop();
  provider = undefined;
});

async function start(script: ScriptInput, onRequest?: (request: RecordedRequest) => void) {
  provider = await startMockProvider({ script, ...(onRequest ? { onRequest } : {}) });
  return provider;
}

// What Gemini CLI sends: its context exchange first, then the prompt.
const opening = [
  { role: 'user', parts: [{ text: 'This is the Gemini CLI. We are setting up the context for our chat.' }] },
  { role: 'model', parts: [{ text: 'Got it. Thanks for the context!' }] },
  { role: 'user', parts: [{ text: 'Create hello.txt containing hi.' }] },
];
const args = { command: "printf 'hi\\n' > hello.txt" };
const toolResult = [
  { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args } }] },
  {
    role: 'user',
    parts: [
      {
        functionResponse: {
          name: 'run_shell_command',
          response: { output: 'Exit Code: 0\nOutput: (empty)' },
        },
      },
    ],
  },
];
const geminiRequest = (more: unknown[] = []) => ({
  contents: [...opening, ...more],
  systemInstruction: { role: 'user', parts: [{ text: 'You are an interactive CLI agent.' }] },
  tools: [{ functionDeclarations: [{ name: 'run_shell_command', parameters: { type: 'OBJECT' } }] }],
  generationConfig: { temperature: 0 },
});

const script: ScriptInput = {
  tracks: [
    {
      name: 'after-tool',
      match: { api: 'gemini', lastUser: 'Exit Code: 0' },
      turns: [
        {
          content: [{ text: 'Created hello.txt with a greeting in it.' }],
          usage: { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 40 },
        },
      ],
    },
    {
      name: 'agent',
      match: {
        system: 'interactive CLI agent',
        firstUser: 'Create hello.txt',
        tools: true,
        model: 'gemini-2.5',
      },
      turns: [
        {
          content: [
            { text: 'I will write the file.' },
            { tool_use: { name: 'run_shell_command', input: args } },
          ],
        },
      ],
    },
  ],
};

const streamUrl = (p: MockProvider) => `${p.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`;
const plainUrl = (p: MockProvider) => `${p.url}/v1beta/models/gemini-2.5-pro:generateContent`;
type Chunk = { candidates: { content: { parts: Record<string, unknown>[] }; finishReason?: string }[] };

describe('scripted provider: Gemini API', () => {
  it('streams a two-turn tool-call exchange as SSE chunks, matching on the function response', async () => {
    const p = await start(script);
    const first = await postJson(streamUrl(p), geminiRequest(), { 'x-goog-api-key': 'k' });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const frames = await framesOf(first);
    expect(new Set(frames.map((frame) => frame.event))).toEqual(new Set(['message']));
    const chunks = frames.map((frame) => frame.data as Chunk);
    const parts = chunks.flatMap((chunk) => chunk.candidates[0]?.content.parts ?? []);
    expect(
      parts
        .filter((part) => 'text' in part)
        .map((part) => part.text)
        .join(''),
    ).toBe('I will write the file.');
    expect(parts.at(-1)).toEqual({ functionCall: { name: 'run_shell_command', args } });
    expect(chunks.map((chunk) => chunk.candidates[0]?.finishReason ?? null).filter(Boolean)).toEqual([
      'STOP',
    ]);
    expect(chunks.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number) },
      modelVersion: 'gemini-2.5-pro',
    });

    const second = (await framesOf(await postJson(streamUrl(p), geminiRequest(toolResult)))).map(
      (frame) => frame.data as Chunk & { usageMetadata?: unknown },
    );
    expect(
      second.flatMap((chunk) => chunk.candidates[0]?.content.parts.map((part) => part.text)).join(''),
    ).toBe('Created hello.txt with a greeting in it.');
    expect(second.at(-1)?.usageMetadata).toEqual({
      promptTokenCount: 140,
      candidatesTokenCount: 7,
      totalTokenCount: 147,
      cachedContentTokenCount: 40,
    });
    expect(p.requests.map((r) => [r.api, r.track, r.position])).toEqual([
      ['gemini', 'agent', 0],
      ['gemini', 'after-tool', 0],
    ]);
  });

  it('answers :generateContent as one JSON response, and :streamGenerateContent without alt=sse as an array', async () => {
    const p = await start(script);
    const first = await postJson(plainUrl(p), geminiRequest());
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(await first.json()).toMatchObject({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'I will write the file.' },
              { functionCall: { name: 'run_shell_command', args } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { totalTokenCount: expect.any(Number) },
    });
    const array = await (
      await postJson(`${p.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent`, geminiRequest(toolResult))
    ).json();
    expect(Array.isArray(array)).toBe(true);
    expect(array.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }] });
  });

  it("sends Google's errors: 429 RESOURCE_EXHAUSTED with retry-after and RetryInfo, in a stream too, and 500", async () => {
    const p = await start({
      turns: [
        { error: { status: 429, retryAfter: 2 } },
        { error: { status: 429, retryAfter: 2, inStream: true } },
        { error: { status: 500 } },
      ],
    });
    const limited = await postJson(streamUrl(p), geminiRequest());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toEqual({
      error: {
        code: 429,
        message: 'Scripted 429 RESOURCE_EXHAUSTED',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' }],
      },
    });
    const failing = await postJson(streamUrl(p), geminiRequest());
    expect(failing.status).toBe(200);
    expect((await framesOf(failing)).map((frame) => frame.data)).toMatchObject([
      { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } },
    ]);
    const broken = await postJson(plainUrl(p), geminiRequest());
    expect(broken.status).toBe(500);
    expect(await broken.json()).toMatchObject({ error: { code: 500, status: 'INTERNAL' } });
  });

  it('stalls before answering and mid-stream, until stop()', async () => {
    let recorded: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      recorded = resolve;
    });
    const p = await start(
      {
        turns: [
          { stall: true },
          { content: [{ text: 'a reply long enough for several chunks' }], stallAfterEvents: 1 },
        ],
      },
      () => recorded(),
    );
    const stalled = postJson(streamUrl(p), geminiRequest()).then(
      (res) => res.status,
      (err: unknown) => err,
    );
    await first;
    const { frames, rest } = await firstFrames(await postJson(streamUrl(p), geminiRequest()), 1);
    expect(frames[0]?.data).toMatchObject({
      candidates: [{ content: { parts: [{ text: 'a reply long enough for ' }] } }],
    });
    await p.stop();
    expect(await stalled).toBeInstanceOf(Error);
    expect(await rest).not.toBe('more');
  });

  it('counts tokens, refuses a request without contents, and answers unknown /v1beta paths in Google words', async () => {
    const p = await start({});
    const counted = await postJson(`${p.url}/v1beta/models/gemini-2.5-pro:countTokens`, geminiRequest());
    expect((await counted.json()).totalTokens).toBeGreaterThan(10);
    const bad = await postJson(plainUrl(p), { contents: [] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('contents') },
    });
    const missing = await fetch(`${p.url}/v1beta/models`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { code: 404, status: 'NOT_FOUND', message: expect.stringContaining(':streamGenerateContent') },
    });
    expect(p.requests.every((r) => r.track === null)).toBe(true);
  });
});
