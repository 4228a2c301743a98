/** Pure helpers over a conversation's message list. */
import type { ContentBlock, InputContentBlock, MessageParam } from '../../llm/schemas.ts';
import type { ToolResultContent } from './stream-json.ts';

/**
 * Adds the user's prompt to a (possibly resumed) history so the API accepts it: tool calls left
 * unanswered by an interrupted run get an error result, and a trailing user turn is extended rather
 * than followed by a second one.
 */
export function appendPrompt(history: MessageParam[], prompt: string): MessageParam[] {
  const messages = [...history];
  const last = messages.at(-1);
  const blocks: InputContentBlock[] = [];
  if (last?.role === 'assistant' && Array.isArray(last.content)) {
    for (const block of last.content) {
      if (block.type !== 'tool_use') continue;
      blocks.push(toolResult(block.id, 'Interrupted: the tool never ran.', true));
    }
  }
  blocks.push({ type: 'text', text: prompt });
  if (last?.role === 'user') {
    const previous: InputContentBlock[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    messages[messages.length - 1] = { role: 'user', content: [...previous, ...blocks] };
  } else {
    messages.push({ role: 'user', content: blocks });
  }
  return messages;
}

export function toolUsesOf(content: ContentBlock[]) {
  return content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
}

/** The text a run reports as its result: the text blocks of the final answer. */
export function finalText(content: ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

export function toolResult(toolUseId: string, content: string, isError: boolean): ToolResultContent {
  return { type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError };
}
