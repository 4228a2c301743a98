import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AgentLoopOptions, runAgentLoop } from '../../src/agents/builtin/agent-loop.ts';
import type { StreamJsonLine } from '../../src/agents/builtin/stream-json.ts';
import { BUILTIN_TOOLS, runTool } from '../../src/agents/builtin/tools/index.ts';
import { createUsageTally } from '../../src/agents/builtin/usage-tally.ts';
import { createMessagesClient } from '../../src/llm/messages-client.ts';
import type { ScriptInput } from '../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../src/llm/mock-provider/server.ts';
import { type MessageParam, MessagesRequestSchema } from '../../src/llm/schemas.ts';
import { makeTempRoot, type TempRoot } from './helpers/temp-root.ts';

let provider: MockProvider | undefined;
let temp: TempRoot;
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(async () => {
  await provider?.stop();
  provider = undefined;
  await temp.cleanup();
});

async function run(script: ScriptInput, overrides: Partial<AgentLoopOptions> = {}) {
  provider = await startMockProvider({ script });
  const lines: StreamJsonLine[] = [];
  const saved: MessageParam[][] = [];
  const sleeps: number[] = [];
  const result = await runAgentLoop({
    client: createMessagesClient({ baseUrl: provider.url }),
    model: 'claude-sonnet-4-5',
    systemPrompt: 'test agent',
    maxTokens: 1000,
    maxTurns: 10,
    maxRetries: 2,
    sessionId: '3f0c5a7e-1111-4222-8333-944444444444',
    history: [],
    prompt: 'do the thing',
    tools: BUILTIN_TOOLS.map((tool) => tool.definition),
    runTool: (name, input, signal) => runTool(name, input, { root: temp.root, signal }),
    emit: (line) => lines.push(line),
    saveMessages: async (messages) => {
      saved.push(messages);
    },
    signal: new AbortController().signal,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  return { result, lines, saved, sleeps, requests: provider.requests };
}

describe('runAgentLoop', () => {
  it('sends tools, system prompt and max_tokens; runs tool calls; ends on a final answer', async () => {
    const { result, lines, saved, requests } = await run({
      turns: [
        {
          content: [
            { tool_use: { name: 'Write', input: { file_path: 'a.txt', content: 'A' } } },
            { tool_use: { name: 'Nope', input: {} } },
          ],
        },
        { content: [{ text: 'Finished.' }] },
      ],
    });
    expect(requests[0]?.body).toMatchObject({ system: 'test agent', max_tokens: 1000, stream: true });
    const sentTools = MessagesRequestSchema.parse(requests[0]?.body).tools?.map((tool) => tool.name);
    expect(sentTools).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write']);
    expect(lines.map((line) => line.type)).toEqual(['assistant', 'assistant', 'user', 'user', 'assistant']);
    expect(lines[3]).toMatchObject({
      type: 'user',
      message: { content: [{ is_error: true, content: expect.stringContaining('No such tool') }] },
    });
    expect(result).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'Finished.',
      num_turns: 2,
      stop_reason: 'end_turn',
    });
    expect(result.total_cost_usd).toBeGreaterThan(0);
    // Saved after the prompt, each reply and each batch of tool results.
    expect(saved.map((messages) => messages.length)).toEqual([1, 2, 3, 4]);
    const second = MessagesRequestSchema.parse(requests[1]?.body);
    expect(second.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it("gives each message's complete usage on its last line (the engine counts spend from it)", async () => {
    // As printed: each line as it was when it went out.
    const lines: StreamJsonLine[] = [];
    await run(
      {
        turns: [
          {
            content: [{ text: 'Listing.' }, { tool_use: { name: 'Glob', input: { pattern: '*' } } }],
            usage: { input_tokens: 100, output_tokens: 900 },
          },
          { content: [{ text: 'Done.' }], usage: { input_tokens: 200, output_tokens: 700 } },
        ],
      },
      { emit: (line) => lines.push(JSON.parse(JSON.stringify(line)) as StreamJsonLine) },
    );
    const usage = lines.flatMap((line) =>
      line.type === 'assistant'
        ? [`${line.message.content[0]?.type} ${line.message.usage.output_tokens}`]
        : [],
    );
    // The first block went out before the message was complete; the last carries its final usage.
    expect(usage).toEqual(['text 1', 'tool_use 900', 'text 700']);
  });

  it('retries with the provider-given delay and reports each retry', async () => {
    const { result, lines, sleeps } = await run({
      turns: [
        { error: { status: 429, retryAfter: 1 } },
        { error: { status: 529 } },
        { content: [{ text: 'ok' }] },
      ],
    });
    expect(sleeps).toEqual([1000, 1000]);
    expect(lines.filter((line) => line.type === 'system')).toMatchObject([
      {
        subtype: 'api_retry',
        attempt: 1,
        max_retries: 2,
        retry_delay_ms: 1000,
        error_status: 429,
        error: 'rate_limit',
      },
      { subtype: 'api_retry', attempt: 2, retry_delay_ms: 1000, error_status: 529, error: 'overloaded' },
    ]);
    expect(result).toMatchObject({ is_error: false, result: 'ok' });
  });

  it('reports exhausted retries as Claude Code does: synthetic assistant message, is_error result', async () => {
    const { result, lines } = await run(
      { turns: [{ error: { status: 500 }, repeat: 3 }] },
      { maxRetries: 1 },
    );
    expect(lines.map((line) => line.type)).toEqual(['system', 'assistant']);
    expect(lines[1]).toMatchObject({
      message: { model: '<synthetic>', content: [{ text: expect.stringContaining('API Error: 500') }] },
      error: 'server_error',
    });
    expect(result).toMatchObject({ subtype: 'success', is_error: true, api_error_status: 500, num_turns: 0 });
  });

  it('adds messages sent meanwhile after the tool results of the next request, printing each back', async () => {
    const inbox = ['steer left'];
    const { result, lines, requests } = await run(
      {
        turns: [
          { content: [{ tool_use: { name: 'Bash', input: { command: 'true' } } }] },
          { content: [{ text: 'Going left.' }] },
        ],
      },
      { takeMessages: () => inbox.splice(0), replay: true },
    );
    const second = MessagesRequestSchema.parse(requests[1]?.body);
    expect(second.messages.at(-1)?.content).toEqual([
      expect.objectContaining({ type: 'tool_result' }),
      { type: 'text', text: 'steer left' },
    ]);
    // The prompt is printed back first, the message after its tool result: Claude Code's order.
    const replays = lines.flatMap((line) =>
      line.type === 'user' && 'isReplay' in line ? [line.message.content[0]] : [],
    );
    expect(replays).toEqual([
      { type: 'text', text: 'do the thing' },
      { type: 'text', text: 'steer left' },
    ]);
    expect(result).toMatchObject({ is_error: false, result: 'Going left.', num_turns: 2 });
  });

  it("counts a later turn's usage alone and the process's cost over all its turns", async () => {
    const tally = createUsageTally();
    const script: ScriptInput = {
      turns: [
        { content: [{ text: 'one' }], usage: { input_tokens: 100, output_tokens: 10 } },
        { content: [{ text: 'two' }], usage: { input_tokens: 200, output_tokens: 20 } },
      ],
    };
    const first = await run(script, { processTally: tally });
    const client = createMessagesClient({ baseUrl: provider?.url ?? '' });
    const second = await runAgentLoop({
      client,
      model: 'claude-sonnet-4-5',
      systemPrompt: 'test agent',
      maxTokens: 1000,
      maxTurns: 10,
      maxRetries: 0,
      sessionId: '3f0c5a7e-1111-4222-8333-944444444444',
      history: first.saved.at(-1) ?? [],
      prompt: ['and again', 'twice'],
      tools: [],
      runTool: () => Promise.reject(new Error('no tools')),
      emit: () => {},
      saveMessages: async () => {},
      signal: new AbortController().signal,
      sleep: async () => {},
      processTally: tally,
    });
    expect(second.usage).toMatchObject({ input_tokens: 200, output_tokens: 20 });
    expect(second.total_cost_usd).toBeCloseTo(tally.totals().totalCostUsd);
    expect(second.total_cost_usd).toBeGreaterThan(first.result.total_cost_usd);
    expect(second.modelUsage['claude-sonnet-4-5']).toMatchObject({ inputTokens: 300, outputTokens: 30 });
    // Both messages of the new turn go in one user message after the last answer.
    const body = MessagesRequestSchema.parse(provider?.requests[1]?.body);
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'and again' },
        { type: 'text', text: 'twice' },
      ],
    });
  });

  it('stops at the turn limit', async () => {
    const { result } = await run(
      { turns: [{ content: [{ tool_use: { name: 'Bash', input: { command: 'true' } } }], repeat: 5 }] },
      { maxTurns: 2 },
    );
    expect(result).toMatchObject({
      subtype: 'error_max_turns',
      is_error: true,
      num_turns: 2,
      errors: ['Reached maximum number of turns (2)'],
    });
  });

  it('ends with error_during_execution when interrupted', async () => {
    const controller = new AbortController();
    const pending = run({ turns: [{ stall: true }] }, { signal: controller.signal });
    while (!provider || provider.requests.length === 0)
      await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const { result } = await pending;
    expect(result).toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      terminal_reason: 'aborted',
    });
  });
});
