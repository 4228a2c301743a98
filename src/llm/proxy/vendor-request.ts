import { z } from 'zod';

// Loose on purpose: the proxy must not refuse or strip fields the provider adds later, so every
// object keeps its unknown keys and only what middleware commonly reads is typed.
const ContentBlock = z.looseObject({ type: z.string() });

const Message = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(ContentBlock)]),
});

/** An Anthropic Messages API request (`POST /v1/messages`), unknown fields kept. */
export const VendorApiRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(Message),
  max_tokens: z.number().int().nonnegative().optional(),
  stream: z.boolean().optional(),
  system: z.union([z.string(), z.array(ContentBlock)]).optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  tool_choice: z.looseObject({ type: z.string() }).optional(),
  thinking: z.looseObject({ type: z.string() }).optional(),
  metadata: z.looseObject({}).optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  top_k: z.number().optional(),
});

export type VendorApiRequest = z.infer<typeof VendorApiRequestSchema>;

const MESSAGES_PATH = '/v1/messages';

/**
 * Whether a request line addresses the Messages endpoint: POST to a path ending in /v1/messages,
 * any query (Claude Code sends `?beta=true`), under any prefix the agent's base URL carries.
 */
export function isMessagesRequest(method: string, url: string): boolean {
  if (method !== 'POST') return false;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  return path.endsWith(MESSAGES_PATH);
}

/** Parses a Messages request body; `undefined` when it is not JSON or not that shape (then it passes raw). */
export function parseVendorRequest(body: Buffer): VendorApiRequest | undefined {
  if (body.length === 0) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = VendorApiRequestSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
