/**
 * An MCP tool's result as an agent's tool result: text. Text content joined; every other kind of
 * content named with what it holds (a model reading the result should know an image came back, not
 * find nothing); structured content when there is nothing else. Pure.
 */

export type McpToolOutcome = { text: string; isError: boolean };

type Content = { type: string; [key: string]: unknown };

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Bytes of base64 `data`, roughly (what the server sent, not shown). */
const bytesOf = (data: unknown): number => {
  const text = str(data) ?? '';
  return Math.floor((text.replace(/=+$/, '').length * 3) / 4);
};

function describeContent(item: Content): string {
  switch (item.type) {
    case 'text':
      return str(item.text) ?? '';
    case 'image':
    case 'audio':
      return `[${item.type} ${str(item.mimeType) ?? 'of unknown type'}, ${bytesOf(item.data)} bytes: not shown]`;
    case 'resource': {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      const uri = str(resource.uri) ?? '(no uri)';
      const text = str(resource.text);
      if (text !== undefined) return `[resource ${uri}]\n${text}`;
      return `[resource ${uri}, ${str(resource.mimeType) ?? 'binary'}, ${bytesOf(resource.blob)} bytes: not shown]`;
    }
    case 'resource_link':
      return `[resource link ${str(item.uri) ?? '(no uri)'}${str(item.name) ? ` (${str(item.name)})` : ''}]`;
    default:
      return `[${item.type} content: not shown]`;
  }
}

/** `result` of a tools/call (CallToolResult, or the older `{toolResult}` form) as text. */
export function mcpToolOutcome(result: Record<string, unknown>): McpToolOutcome {
  const isError = result.isError === true;
  const content = Array.isArray(result.content) ? (result.content as Content[]) : [];
  const parts = content.filter((item) => typeof item?.type === 'string').map(describeContent);
  if (parts.length > 0) return { text: parts.join('\n'), isError };
  if (result.structuredContent !== undefined)
    return { text: JSON.stringify(result.structuredContent), isError };
  if ('toolResult' in result) return { text: JSON.stringify(result.toolResult), isError };
  return { text: '(the tool returned no content)', isError };
}
