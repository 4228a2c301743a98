/**
 * The parts of an incoming Messages request that scripts match on, read leniently: the provider must
 * accept whatever a real client (Claude Code) sends, so only what the API itself requires is checked.
 */
import { z } from 'zod';

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
  model: string;
  system: string;
  firstUser: string;
  lastUser: string;
  hasTools: boolean;
  headers: RequestHeaders;
};

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
    model: request.model,
    system: textOf(request.system),
    firstUser: textOf(users[0]?.content),
    lastUser: textOf(users.at(-1)?.content),
    hasTools: (request.tools?.length ?? 0) > 0,
    headers,
  };
}

/** First issue as `field: problem`, the way the API words request errors. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid request';
  const path = issue.path.map(String).join('.');
  const required = issue.code === 'invalid_type' && issue.input === undefined;
  return `${path || 'body'}: ${required ? 'Field required' : issue.message}`;
}
