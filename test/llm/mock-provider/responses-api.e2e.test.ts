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

// What Codex CLI sends: its instructions, a developer message, its environment context, the prompt.
const tools = [
  {
    type: 'function',
    name: 'exec_command',
    description: 'Runs a command.',
    parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
    strict: false,
  },
];
const opening = [
  {
    type: 'message',
    role: 'developer',
    content: [{ type: 'input_text', text: '<permissions>full</permissions>' }],
  },
  {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: '<environment_context>/w</environment_context>' }],
  },
  {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: 'Create hello.txt containing hi.' }],
  },
];
const command = { cmd: "printf 'hi\\n' > hello.txt" };
const toolResult = [
  { type: 'function_call', name: 'exec_command', arguments: JSON.stringify(command), call_id: 'call_w1' },
  { type: 'function_call_output', call_id: 'call_w1', output: 'Exit code: 0\nOutput:\n' },
];
const codexRequest = (stream: boolean, more: unknown[] = []) => ({
  model: 'gpt-5-codex',
  instructions: 'You are Codex, a coding agent.',
  input: [...opening, ...more],
  tools,
  tool_choice: 'auto',
  store: false,
  stream,
});

const script: ScriptInput = {
  tracks: [
    {
      name: 'after-tool',
      match: { api: 'openai-responses', lastUser: 'Exit code: 0' },
      turns: [
        {
          content: [{ text: 'Created hello.txt with a greeting in it.' }],
          usage: { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 40 },
        },
      ],
    },
    {
      name: 'agent',
      match: { system: 'You are Codex', firstUser: 'Create hello.txt', tools: true },
      turns: [
        {
          content: [
            { thinking: 'Write the file.' },
            { tool_use: { name: 'exec_command', input: command, id: 'call_w1' } },
          ],
        },
      ],
    },
  ],
};

const url = (p: MockProvider) => `${p.url}/v1/responses`;

describe('scripted provider: OpenAI Responses API', () => {
  it('streams a two-turn tool-call exchange as Codex reads it, matching on the tool output', async () => {
    const p = await start(script);
    const first = await postJson(url(p), codexRequest(true));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const frames = await framesOf(first);
    const types = frames.map((frame) => frame.event);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(frames.map((frame) => frame.data.type)).toEqual(types);
    expect(frames.map((frame) => frame.data.sequence_number)).toEqual(types.map((_, i) => i));
    const done = frames
      .filter((frame) => frame.event === 'response.output_item.done')
      .map((frame) => frame.data.item);
    expect(done).toMatchObject([
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Write the file.' }] },
      { type: 'function_call', name: 'exec_command', call_id: 'call_w1', status: 'completed' },
    ]);
    const call = done[1] as { arguments: string; id: string };
    expect(JSON.parse(call.arguments)).toEqual(command);
    expect(call.id).toMatch(/^fc_[0-9a-f]{48}$/);
    const argumentDeltas = frames
      .filter((frame) => frame.event === 'response.function_call_arguments.delta')
      .map((frame) => frame.data.delta)
      .join('');
    expect(argumentDeltas).toBe(call.arguments);
    const completed = frames.at(-1)?.data.response as Record<string, unknown>;
    expect(completed).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-5-codex' });
    expect(completed.id).toMatch(/^resp_/);
    expect(completed.usage).toMatchObject({
      input_tokens: expect.any(Number),
      input_tokens_details: { cached_tokens: 0 },
    });

    const second = await framesOf(await postJson(url(p), codexRequest(true, toolResult)));
    const text = second
      .filter((frame) => frame.event === 'response.output_text.delta')
      .map((frame) => frame.data.delta)
      .join('');
    expect(text).toBe('Created hello.txt with a greeting in it.');
    expect(second.find((frame) => frame.event === 'response.output_item.done')?.data.item).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text }],
    });
    expect(second.at(-1)?.data.response).toMatchObject({
      usage: {
        input_tokens: 140,
        input_tokens_details: { cached_tokens: 40 },
        output_tokens: 7,
        total_tokens: 147,
      },
    });
    expect(p.requests.map((r) => [r.api, r.track, r.position])).toEqual([
      ['openai-responses', 'agent', 0],
      ['openai-responses', 'after-tool', 0],
    ]);
  });

  it('answers the same exchange as plain JSON when stream is false', async () => {
    const p = await start(script);
    const first = await postJson(url(p), codexRequest(false));
    expect(first.headers.get('content-type')).toBe('application/json');
    const response = await first.json();
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [{ type: 'reasoning' }, { type: 'function_call', name: 'exec_command', call_id: 'call_w1' }],
    });
    expect(JSON.parse(response.output[1].arguments)).toEqual(command);
    const second = await (await postJson(url(p), codexRequest(false, toolResult))).json();
    expect(second.output).toMatchObject([
      { type: 'message', content: [{ text: 'Created hello.txt with a greeting in it.' }] },
    ]);
  });

  it('sends 429 with retry-after, a response.failed stream Codex can retry, and 500', async () => {
    const p = await start({
      turns: [
        { error: { status: 429, retryAfter: 2 } },
        { error: { status: 429, retryAfter: 2, inStream: true } },
        { error: { status: 500 } },
      ],
    });
    const limited = await postJson(url(p), codexRequest(true));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toMatchObject({
      error: { code: 'rate_limit_exceeded', message: expect.stringContaining('try again in 2s') },
    });

    const failing = await postJson(url(p), codexRequest(true));
    expect(failing.status).toBe(200);
    const frames = await framesOf(failing);
    expect(frames.map((frame) => frame.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.failed',
    ]);
    const failed = frames[2]?.data.response as { status: string; error: { code: string; message: string } };
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('rate_limit_exceeded');
    // The pattern Codex reads the delay with.
    expect(/try again in\s*(\d+(?:\.\d+)?)\s*(s|ms|seconds?)/i.exec(failed.error.message)?.[1]).toBe('2');

    const broken = await postJson(url(p), codexRequest(false));
    expect(broken.status).toBe(500);
    expect(await broken.json()).toMatchObject({ error: { type: 'server_error' } });
  });

  it('stalls before answering and mid-stream, until stop()', async () => {
    let recorded: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      recorded = resolve;
    });
    const p = await start(
      { turns: [{ stall: true }, { content: [{ text: 'never finished' }], stallAfterEvents: 3 }] },
      () => recorded(),
    );
    const stalled = postJson(url(p), codexRequest(true)).then(
      (res) => res.status,
      (err: unknown) => err,
    );
    await first;
    const { frames, rest } = await firstFrames(await postJson(url(p), codexRequest(true)), 3);
    expect(frames.map((frame) => frame.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
    ]);
    await p.stop();
    expect(await stalled).toBeInstanceOf(Error);
    expect(await rest).not.toBe('more');
  });

  it('refuses a request without a model in OpenAI words and names its routes on a 404', async () => {
    const p = await start({ turns: [{ content: [{ text: 'kept' }] }] });
    const bad = await postJson(url(p), { input: 'hi' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        param: 'model',
        message: "Missing required parameter: 'model'.",
      },
    });
    const missing = await postJson(`${p.url}/v1/chat/completions`, { model: 'gpt-5' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain('POST /v1/responses');
    // A string input is one user message; the turn was not used by the refused request.
    expect(await (await postJson(url(p), { model: 'gpt-5', input: 'hi' })).json()).toMatchObject({
      output: [{ content: [{ text: 'kept' }] }],
    });
  });
});
