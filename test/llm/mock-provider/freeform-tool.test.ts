/**
 * A script's freeform tool call (a tool_use whose input is a string, as Codex's apply_patch): an
 * OpenAI custom_tool_call with its stream events, the text as `{ input }` in the APIs without
 * freeform tools, and the request view reading custom tool calls and Codex's additional_tools.
 */
import { describe, expect, it } from 'vitest';
import { buildGeminiResponse } from '../../../src/llm/mock-provider/gemini-builder.ts';
import type { IdSource } from '../../../src/llm/mock-provider/ids.ts';
import { buildMessage, streamEventsOf } from '../../../src/llm/mock-provider/response-builder.ts';
import { buildResponse, responseEventsOf } from '../../../src/llm/mock-provider/responses-builder.ts';
import { ResponsesRequestSchema, responsesViewOf } from '../../../src/llm/mock-provider/responses-view.ts';
import { parseScript } from '../../../src/llm/mock-provider/script-loader.ts';
import { trackMatches } from '../../../src/llm/mock-provider/script-player.ts';
import type { ReplyTurn } from '../../../src/llm/mock-provider/script-schema.ts';

let n = 0;
const ids: IdSource = {
  messageId: () => `msg_${++n}`,
  toolUseId: () => `toolu_${++n}`,
  requestId: () => `req_${++n}`,
  signature: () => 'c2ln',
  openAiId: (prefix) => `${prefix}_${++n}`,
  callId: () => `call_${++n}`,
  geminiResponseId: () => `gr${++n}`,
};

const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch';

/** A turn as a script file gives it: parsed, defaults filled. */
function turnOf(content: unknown[]): ReplyTurn {
  const parsed = parseScript({ turns: [{ content }] });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const [turn] = parsed.script.turns;
  if (!turn || !('content' in turn)) throw new Error('no reply turn');
  return { ...turn, content: turn.content.flatMap((block) => ('mcp_tool' in block ? [] : [block])) };
}

const patchTurn = turnOf([
  { text: 'Adding hello.txt.' },
  { tool_use: { name: 'apply_patch', input: PATCH, id: 'call_patch' } },
]);
const context = { model: 'gpt-6.2-sol', inputTokens: 100, ids, createdAt: 1_700_000_000 };

describe('a freeform tool call in the OpenAI Responses API', () => {
  it('is a custom_tool_call item carrying the text as its input', () => {
    const response = buildResponse(patchTurn, context);
    expect(response.output.map((item) => item.type)).toEqual(['message', 'custom_tool_call']);
    expect(response.output[1]).toEqual({
      type: 'custom_tool_call',
      id: expect.stringMatching(/^ctc_/),
      status: 'completed',
      call_id: 'call_patch',
      name: 'apply_patch',
      input: PATCH,
    });
    // Without an id the call gets one; an object input stays a function call.
    const unnamed = buildResponse(
      turnOf([{ tool_use: { name: 'apply_patch', input: PATCH } }, { tool_use: { name: 'exec_command' } }]),
      context,
    );
    expect(unnamed.output).toMatchObject([
      { type: 'custom_tool_call', call_id: expect.stringMatching(/^call_/) },
      { type: 'function_call', name: 'exec_command', arguments: '{}' },
    ]);
  });

  it('streams as OpenAI does: item added with empty input, input deltas, input done, item done', () => {
    const response = buildResponse(patchTurn, context);
    const item = response.output[1];
    const events = responseEventsOf(response).filter(
      (event) => event.item_id === item?.id || (event.item as { id?: string } | undefined)?.id === item?.id,
    );
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('response.output_item.added');
    expect(types.at(-2)).toBe('response.custom_tool_call_input.done');
    expect(types.at(-1)).toBe('response.output_item.done');
    const deltas = events.filter((event) => event.type === 'response.custom_tool_call_input.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.length).toBe(types.length - 3);
    expect(events[0]).toMatchObject({
      output_index: 1,
      item: { type: 'custom_tool_call', status: 'in_progress', input: '', call_id: 'call_patch' },
    });
    for (const delta of deltas) expect(delta).toMatchObject({ item_id: item?.id, output_index: 1 });
    expect(deltas.map((delta) => delta.delta).join('')).toBe(PATCH);
    expect(events.at(-2)).toMatchObject({ item_id: item?.id, output_index: 1, input: PATCH });
    expect(events.at(-1)).toMatchObject({ output_index: 1, item });
    // Numbered in order within the whole stream, which still ends completed.
    const all = responseEventsOf(response);
    expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, i) => i));
    expect(all.at(-1)?.type).toBe('response.completed');
  });
});

describe('a freeform tool call in the APIs without freeform tools', () => {
  it('is a tool call whose input object holds the text: Anthropic tool_use, Gemini functionCall', () => {
    const message = buildMessage(patchTurn, context);
    expect(message.content[1]).toEqual({
      type: 'tool_use',
      id: 'call_patch',
      name: 'apply_patch',
      input: { input: PATCH },
    });
    const json = streamEventsOf(message)
      .flatMap((event) =>
        event.type === 'content_block_delta' && event.delta.type === 'input_json_delta'
          ? [event.delta.partial_json]
          : [],
      )
      .join('');
    expect(JSON.parse(json)).toEqual({ input: PATCH });
    const gemini = buildGeminiResponse(patchTurn, context);
    expect(gemini.candidates[0]?.content.parts[1]).toEqual({
      functionCall: { name: 'apply_patch', args: { input: PATCH }, id: 'call_patch' },
    });
  });
});

describe('the Responses request view', () => {
  // What Codex sends for a code-mode model (gpt-6.x): no `tools`, its tools in an additional_tools item.
  const additionalTools = {
    type: 'additional_tools',
    role: 'developer',
    tools: [{ type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec' }] }],
  };
  const prompt = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Add hello.txt.' }] };
  const call = { type: 'custom_tool_call', call_id: 'call_1', name: 'apply_patch', input: PATCH };
  const output = {
    type: 'custom_tool_call_output',
    call_id: 'call_1',
    output: 'Success. Updated the following files:\nA hello.txt\n',
  };
  const view = (body: Record<string, unknown>) =>
    responsesViewOf(ResponsesRequestSchema.parse({ model: 'gpt-6.2-sol', ...body }), {});

  it('counts tools declared in an additional_tools item, as in `tools`', () => {
    expect(view({ input: [additionalTools, prompt] }).hasTools).toBe(true);
    expect(view({ input: [prompt], tools: [{ type: 'custom', name: 'apply_patch' }] }).hasTools).toBe(true);
    expect(view({ input: [prompt] }).hasTools).toBe(false);
    expect(view({ input: [{ ...additionalTools, tools: [] }, prompt] }).hasTools).toBe(false);
    expect(trackMatches({ tools: true }, view({ input: [additionalTools, prompt] }))).toBe(true);
  });

  it('reads a custom tool call as the model acting and its output as the last user text', () => {
    const seen = view({ input: [additionalTools, prompt, call, output] });
    expect(seen.firstUser).toBe('Add hello.txt.');
    expect(seen.lastUser).toBe('Success. Updated the following files:\nA hello.txt\n');
  });
});
