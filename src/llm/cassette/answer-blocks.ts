/**
 * A recorded answer read back as a scripted provider's turn (script-schema.ts): its text, thinking and
 * tool calls, its stop reason, or the error it was. For `ribosome cassette show` and `to-script`, in
 * each API's shape (SSE or JSON). Pure.
 */
import type { ScriptBlock, Turn } from '../mock-provider/script-schema.ts';
import type { ExchangeLine } from './schema.ts';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The JSON values of an answer: each SSE `data:` line, or the whole body. */
function payloads(text: string): unknown[] {
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim());
  const sources = data.length > 0 ? data : [text];
  return sources.flatMap((source) => {
    try {
      return [JSON.parse(source)];
    } catch {
      return [];
    }
  });
}

function parsedInput(text: string): string | Record<string, unknown> {
  try {
    const value = JSON.parse(text || '{}');
    return isObject(value) ? value : text;
  } catch {
    return text;
  }
}

function anthropicBlocks(events: unknown[]): { blocks: ScriptBlock[]; stop?: string } {
  const blocks: ScriptBlock[] = [];
  let stop: string | undefined;
  const open = new Map<
    number,
    { kind: 'text' | 'thinking' | 'tool'; text: string; name?: string; id?: string }
  >();
  const close = (index: number) => {
    const block = open.get(index);
    open.delete(index);
    if (!block) return;
    if (block.kind === 'text') blocks.push({ text: block.text });
    else if (block.kind === 'thinking') blocks.push({ thinking: block.text });
    else blocks.push({ tool_use: { name: block.name ?? 'tool', input: parsedInput(block.text) } });
  };
  for (const event of events.filter(isObject)) {
    if (Array.isArray(event.content)) {
      // A whole message (no stream).
      for (const item of event.content.filter(isObject)) {
        if (item.type === 'text') blocks.push({ text: str(item.text) ?? '' });
        if (item.type === 'thinking') blocks.push({ thinking: str(item.thinking) ?? '' });
        if (item.type === 'tool_use')
          blocks.push({
            tool_use: { name: str(item.name) ?? 'tool', input: isObject(item.input) ? item.input : {} },
          });
      }
      stop = str(event.stop_reason);
    }
    const index = typeof event.index === 'number' ? event.index : -1;
    if (event.type === 'content_block_start' && isObject(event.content_block)) {
      const b = event.content_block;
      const kind = b.type === 'tool_use' ? 'tool' : b.type === 'thinking' ? 'thinking' : 'text';
      open.set(index, { kind, text: str(b.text) ?? '', ...(b.name ? { name: String(b.name) } : {}) });
    }
    if (event.type === 'content_block_delta' && isObject(event.delta)) {
      const block = open.get(index);
      const d = event.delta;
      if (block) block.text += str(d.text) ?? str(d.partial_json) ?? str(d.thinking) ?? '';
    }
    if (event.type === 'content_block_stop') close(index);
    if (event.type === 'message_delta' && isObject(event.delta)) stop = str(event.delta.stop_reason) ?? stop;
  }
  for (const index of [...open.keys()]) close(index);
  return { blocks, ...(stop ? { stop } : {}) };
}

function responsesBlocks(events: unknown[]): { blocks: ScriptBlock[] } {
  // The completed response holds every output item; a plain JSON answer is that response itself.
  let output: unknown[] = [];
  for (const event of events.filter(isObject)) {
    if (isObject(event.response) && Array.isArray(event.response.output)) output = event.response.output;
    else if (Array.isArray(event.output)) output = event.output;
  }
  const blocks: ScriptBlock[] = [];
  for (const item of output.filter(isObject)) {
    if (item.type === 'message' && Array.isArray(item.content))
      for (const part of item.content.filter(isObject)) blocks.push({ text: str(part.text) ?? '' });
    if (item.type === 'reasoning' && Array.isArray(item.summary))
      blocks.push({
        thinking: item.summary
          .filter(isObject)
          .map((s) => str(s.text) ?? '')
          .join('\n'),
      });
    if (item.type === 'function_call') {
      // A namespaced function (Codex's MCP tools) is replayed in its namespace.
      const namespace = str(item.namespace);
      blocks.push({
        tool_use: {
          name: str(item.name) ?? 'tool',
          input: parsedInput(str(item.arguments) ?? ''),
          ...(namespace ? { namespace } : {}),
        },
      });
    }
    if (item.type === 'custom_tool_call')
      blocks.push({ tool_use: { name: str(item.name) ?? 'tool', input: str(item.input) ?? '' } });
  }
  return { blocks };
}

function geminiBlocks(events: unknown[]): { blocks: ScriptBlock[] } {
  const blocks: ScriptBlock[] = [];
  for (const event of events.filter(isObject)) {
    const candidate = Array.isArray(event.candidates) ? event.candidates.find(isObject) : undefined;
    const parts =
      isObject(candidate?.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    for (const part of parts.filter(isObject)) {
      const last = blocks.at(-1);
      if (typeof part.text === 'string') {
        const thought = part.thought === true;
        if (last && !thought && 'text' in last) last.text += part.text;
        else if (last && thought && 'thinking' in last) last.thinking += part.text;
        else blocks.push(thought ? { thinking: part.text } : { text: part.text });
      }
      if (isObject(part.functionCall))
        blocks.push({
          tool_use: {
            name: str(part.functionCall.name) ?? 'tool',
            input: isObject(part.functionCall.args) ? part.functionCall.args : {},
          },
        });
    }
  }
  return { blocks };
}

/** The turn a recorded exchange answered with, or undefined when it cannot be read as one. */
export function turnOf(exchange: ExchangeLine): Turn | undefined {
  const text = exchange.chunks.map(([, chunk]) => chunk).join('');
  const events = payloads(text);
  if (exchange.status >= 400) {
    const body = events.find(isObject);
    const error = isObject(body?.error) ? body.error : undefined;
    const message = str(error?.message);
    const retryAfter = Number(exchange.headers['retry-after']);
    return {
      error: {
        status: exchange.status,
        ...(message ? { message } : {}),
        ...(Number.isFinite(retryAfter) ? { retryAfter } : {}),
      },
    };
  }
  const read =
    exchange.api === 'openai-responses'
      ? responsesBlocks(events)
      : exchange.api === 'gemini'
        ? geminiBlocks(events)
        : anthropicBlocks(events);
  const blocks = read.blocks.filter((b) => !('text' in b) || b.text !== '');
  if (blocks.length === 0) return undefined;
  const stop: string | undefined = 'stop' in read && typeof read.stop === 'string' ? read.stop : undefined;
  const usage = exchange.usage
    ? { usage: { input_tokens: exchange.usage.input_tokens, output_tokens: exchange.usage.output_tokens } }
    : {};
  return {
    content: blocks,
    ...(stop && stop !== 'end_turn' && stop !== 'tool_use' ? { stopReason: stop } : {}),
    ...usage,
  };
}
