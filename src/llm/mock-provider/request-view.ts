/**
 * The parts of an incoming request that scripts match on (the neutral RequestView), and how an
 * Anthropic Messages request maps to it. Requests are read leniently: the provider must accept
 * whatever a real client (Claude Code) sends, so only what the API itself requires is checked.
 * The other APIs' views (responses-view.ts, gemini-view.ts) build theirs with `conversationView`.
 */
import { z } from 'zod';
import type { WireApi } from './script-schema.ts';

const LooseBlockSchema = z.looseObject({ type: z.string() });
type LooseBlock = z.infer<typeof LooseBlockSchema>;
const LooseContentSchema = z.union([z.string(), z.array(LooseBlockSchema)]);
type LooseContent = z.infer<typeof LooseContentSchema>;

export const WireRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: LooseContentSchema })),
  system: LooseContentSchema.optional(),
  tools: z.array(z.unknown()).optional(),
  stream: z.boolean().optional(),
});
export type WireRequest = z.infer<typeof WireRequestSchema>;

/** Token counting takes the same body minus max_tokens. */
export const CountTokensRequestSchema = WireRequestSchema.omit({ max_tokens: true });

export type RequestHeaders = Record<string, string | string[] | undefined>;

export type RequestView = {
  api: WireApi;
  model: string;
  system: string;
  firstUser: string;
  lastUser: string;
  hasTools: boolean;
  /** The tools the request declares, by name (and namespace, for OpenAI's namespaced functions). */
  tools: DeclaredTool[];
  /**
   * Namespaces the request says it holds back (Codex's code-mode models: "Deferred tool namespaces"),
   * whose tools its code-running tool calls (mcp-tool.ts).
   */
  deferredNamespaces: string[];
  headers: RequestHeaders;
};

/** A tool a request declares: its name, and the namespace it sits in (OpenAI `namespace` tools). */
export type DeclaredTool = { name: string; namespace?: string; freeform?: true };

/** The names of `tools` entries that carry one (Anthropic tools, Gemini functionDeclarations). */
export function namedTools(tools: readonly unknown[] | undefined): DeclaredTool[] {
  return (tools ?? []).flatMap((tool) =>
    typeof tool === 'object' && tool !== null && 'name' in tool && typeof tool.name === 'string'
      ? [{ name: tool.name }]
      : [],
  );
}

export function textOf(content: LooseContent | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map(blockText).filter(Boolean).join('\n');
}

function blockText(block: LooseBlock): string {
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  if (block.type === 'tool_result') {
    const inner = LooseContentSchema.safeParse(block.content);
    return inner.success ? textOf(inner.data) : '';
  }
  return '';
}

export function viewOf(request: WireRequest, headers: RequestHeaders): RequestView {
  const users = request.messages.filter((message) => message.role === 'user');
  return {
    api: 'anthropic',
    model: request.model,
    system: textOf(request.system),
    firstUser: textOf(users[0]?.content),
    lastUser: textOf(users.at(-1)?.content),
    hasTools: (request.tools?.length ?? 0) > 0,
    tools: namedTools(request.tools),
    deferredNamespaces: [],
    headers,
  };
}

/** One item of a conversation as the view sees it: who said it, its text, whether it calls a tool. */
export type ViewEntry = { role: 'system' | 'user' | 'assistant'; text: string; callsTool?: boolean };

/**
 * system, firstUser and lastUser of a conversation given as a flat list of entries (OpenAI input
 * items, Gemini contents). System entries form `system` and do not split the user side. lastUser is
 * the last run of user entries (a turn's tool results and messages). firstUser is the user text before
 * the first tool call: the agents open with context messages of their own (Codex its environment
 * context, Gemini CLI a context message the model acknowledges), so the prompt is not always the
 * first user message, but it always comes before the model first acts.
 */
export function conversationView(
  entries: ViewEntry[],
): Pick<RequestView, 'system' | 'firstUser' | 'lastUser'> {
  const system: string[] = [];
  const first: string[] = [];
  let last: string[] = [];
  let acted = false;
  let userRunOpen = false;
  for (const entry of entries) {
    if (entry.role === 'system') {
      if (entry.text) system.push(entry.text);
      continue;
    }
    if (entry.role === 'assistant') {
      if (entry.callsTool) acted = true;
      userRunOpen = false;
      continue;
    }
    if (!userRunOpen) last = [];
    userRunOpen = true;
    if (!entry.text) continue;
    last.push(entry.text);
    if (!acted) first.push(entry.text);
  }
  return { system: system.join('\n'), firstUser: first.join('\n'), lastUser: last.join('\n') };
}

/** Every string inside a JSON value, in order (a Gemini functionResponse's `response` object). */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}

/** First issue as `field: problem`, the way the API words request errors. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid request';
  const path = issue.path.map(String).join('.');
  const required = issue.code === 'invalid_type' && issue.input === undefined;
  return `${path || 'body'}: ${required ? 'Field required' : issue.message}`;
}
