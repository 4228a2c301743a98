/**
 * An OpenAI Responses request (`POST /v1/responses`, as Codex CLI sends it) mapped to the neutral
 * RequestView: system is `instructions` plus system/developer messages; user messages and tool
 * outputs (`function_call_output` and the other `*_call_output` items) are the user side; assistant
 * messages, reasoning and `*_call` items the model's (a freeform tool's `custom_tool_call` and its
 * `custom_tool_call_output` included). Tools are those of `tools` and those an `additional_tools` input
 * item declares (Codex's code-mode models, gpt-6.x, send theirs that way and no `tools`).
 */
import { z } from 'zod';
import {
  conversationView,
  type DeclaredTool,
  type RequestHeaders,
  type RequestView,
  type ViewEntry,
} from './request-view.ts';

const InputItemSchema = z.looseObject({ type: z.string().optional(), role: z.string().optional() });
type InputItem = z.infer<typeof InputItemSchema>;

export const ResponsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(InputItemSchema)]).optional(),
  instructions: z.string().nullable().optional(),
  tools: z.array(z.unknown()).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

/** Text of a message's content or a tool output: a string, or parts carrying `text`. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string'
        ? part.text
        : '',
    )
    .filter(Boolean)
    .join('\n');
}

function entryOf(item: InputItem): ViewEntry | null {
  const type = item.type ?? 'message';
  if (type === 'message') {
    const role = item.role === 'assistant' ? 'assistant' : item.role === 'user' ? 'user' : 'system';
    return { role, text: textOf(item.content) };
  }
  if (type.endsWith('_call_output')) return { role: 'user', text: textOf(item.output) };
  if (type.endsWith('_call')) return { role: 'assistant', text: '', callsTool: true };
  if (type === 'reasoning') return { role: 'assistant', text: '' };
  return null;
}

/** The request declares a tool: in `tools`, or in an `additional_tools` input item. */
function declaresTools(request: ResponsesRequest, items: InputItem[]): boolean {
  if ((request.tools?.length ?? 0) > 0) return true;
  return items.some(
    (item) => item.type === 'additional_tools' && Array.isArray(item.tools) && item.tools.length > 0,
  );
}

/** A tool entry (function, custom, namespace) as the tools it declares; others (web_search) none. */
function declared(tool: unknown, namespace?: string): DeclaredTool[] {
  if (typeof tool !== 'object' || tool === null || !('type' in tool) || !('name' in tool)) return [];
  const { type, name } = tool;
  if (typeof name !== 'string') return [];
  if (type === 'namespace' && 'tools' in tool && Array.isArray(tool.tools))
    return tool.tools.flatMap((inner: unknown) => declared(inner, name));
  const where = namespace ? { namespace } : {};
  if (type === 'function') return [{ name, ...where }];
  if (type === 'custom') return [{ name, ...where, freeform: true }];
  return [];
}

/** Every tool of `tools` and of the `additional_tools` input items. */
function declaredTools(request: ResponsesRequest, items: InputItem[]): DeclaredTool[] {
  const extra = items.flatMap((item) =>
    item.type === 'additional_tools' && Array.isArray(item.tools) ? item.tools : [],
  );
  return [...(request.tools ?? []), ...extra].flatMap((tool) => declared(tool));
}

/**
 * The namespaces Codex holds back from a code-mode model, as its input's messages say them in order:
 * "Deferred tool namespaces:" then `- name` (or `- name: what it offers`) lines, later "Added deferred
 * tool namespaces:" and "Removed deferred tool namespaces:" lists (a continued session whose servers
 * changed), or "No deferred tool namespaces remain.": their tools are reached through its `exec` tool.
 */
function deferredNamespaces(items: InputItem[]): string[] {
  const names = new Set<string>();
  const said =
    /(Deferred|Added deferred|Removed deferred) tool namespaces:\n((?:- [^\n]+\n?)+)|No deferred tool namespaces remain/g;
  for (const item of items) {
    if ((item.type ?? 'message') !== 'message') continue;
    for (const [whole, how, list = ''] of textOf(item.content).matchAll(said)) {
      if (how === undefined) {
        if (whole.startsWith('No deferred')) names.clear();
        continue;
      }
      if (how === 'Deferred') names.clear();
      for (const line of list.split('\n')) {
        if (!line.startsWith('- ')) continue;
        const name = line.slice(2).split(':')[0]?.trim() ?? '';
        if (name === '') continue;
        if (how === 'Removed deferred') names.delete(name);
        else names.add(name);
      }
    }
  }
  return [...names];
}

export function responsesViewOf(request: ResponsesRequest, headers: RequestHeaders): RequestView {
  const input = request.input ?? [];
  const items: InputItem[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  const entries: ViewEntry[] = [{ role: 'system', text: request.instructions ?? '' }];
  for (const item of items) {
    const entry = entryOf(item);
    if (entry) entries.push(entry);
  }
  return {
    api: 'openai-responses',
    model: request.model,
    ...conversationView(entries),
    hasTools: declaresTools(request, items),
    tools: declaredTools(request, items),
    deferredNamespaces: deferredNamespaces(items),
    headers,
  };
}

/** The API's wording of a request error, with the parameter it concerns. */
export function describeResponsesIssue(error: z.ZodError): { message: string; param: string | null } {
  const issue = error.issues[0];
  if (!issue) return { message: 'Invalid request.', param: null };
  const param = issue.path.map(String).join('.') || null;
  if (issue.code === 'invalid_type' && issue.input === undefined)
    return { message: `Missing required parameter: '${param}'.`, param };
  return { message: `Invalid '${param ?? 'body'}': ${issue.message}`, param };
}
