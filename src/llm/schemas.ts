/**
 * Anthropic Messages API shapes (https://docs.anthropic.com/en/api/messages), defined once in zod.
 * Objects are loose: fields the API adds later pass through untouched instead of failing validation.
 */
import { z } from 'zod';

// ---- Usage ----------------------------------------------------------------------------------------

export const UsageSchema = z.looseObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
  cache_read_input_tokens: z.number().int().nonnegative().nullish(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** message_delta carries cumulative counts, any of which may be absent. */
export const UsageDeltaSchema = UsageSchema.partial();
export type UsageDelta = z.infer<typeof UsageDeltaSchema>;

// ---- Content blocks (assistant output, also echoed back in requests) -------------------------------

export const TextBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
export const ThinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional(),
});
export const RedactedThinkingBlockSchema = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});
export const ToolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
// Server-side tools (web search, ...) stream their own blocks; kept opaque.
export const ServerToolUseBlockSchema = z.looseObject({
  type: z.literal('server_tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
export const WebSearchResultBlockSchema = z.looseObject({
  type: z.literal('web_search_tool_result'),
  tool_use_id: z.string(),
  content: z.unknown(),
});

export const ContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
  ToolUseBlockSchema,
  ServerToolUseBlockSchema,
  WebSearchResultBlockSchema,
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;
export type TextBlock = z.infer<typeof TextBlockSchema>;
export type ThinkingBlock = z.infer<typeof ThinkingBlockSchema>;
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;

// ---- Request ------------------------------------------------------------------------------------------

export const ToolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
});
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;

export const ImageBlockSchema = z.looseObject({ type: z.literal('image'), source: z.unknown() });
export const DocumentBlockSchema = z.looseObject({ type: z.literal('document'), source: z.unknown() });

export const InputContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ImageBlockSchema,
  DocumentBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
  ToolUseBlockSchema,
  ToolResultBlockSchema,
  ServerToolUseBlockSchema,
  WebSearchResultBlockSchema,
]);
export type InputContentBlock = z.infer<typeof InputContentBlockSchema>;

export const MessageParamSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(InputContentBlockSchema)]),
});
export type MessageParam = z.infer<typeof MessageParamSchema>;

export const ToolDefinitionSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

export const SystemPromptSchema = z.union([z.string(), z.array(TextBlockSchema)]);

export const MessagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(MessageParamSchema),
  system: SystemPromptSchema.optional(),
  tools: z.array(ToolDefinitionSchema).optional(),
  tool_choice: z.looseObject({ type: z.string() }).optional(),
  temperature: z.number().optional(),
  stop_sequences: z.array(z.string()).optional(),
  thinking: z.looseObject({ type: z.string() }).optional(),
  metadata: z.looseObject({}).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

// ---- Response -----------------------------------------------------------------------------------------

export const StopReasonSchema = z.string(); // end_turn, max_tokens, stop_sequence, tool_use, pause_turn, refusal, ...

export const MessageSchema = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(ContentBlockSchema),
  stop_reason: StopReasonSchema.nullable(),
  stop_sequence: z.string().nullable().optional(),
  usage: UsageSchema,
});
export type Message = z.infer<typeof MessageSchema>;

export const ApiErrorBodySchema = z.looseObject({
  type: z.literal('error'),
  error: z.looseObject({ type: z.string(), message: z.string() }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;

// ---- Streaming events ---------------------------------------------------------------------------------

export const ContentDeltaSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
  z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
  z.looseObject({ type: z.literal('citations_delta'), citation: z.unknown() }),
]);
export type ContentDelta = z.infer<typeof ContentDeltaSchema>;

export const StreamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message_start'), message: MessageSchema }),
  z.looseObject({
    type: z.literal('content_block_start'),
    index: z.number().int().nonnegative(),
    content_block: ContentBlockSchema,
  }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index: z.number().int().nonnegative(),
    delta: ContentDeltaSchema,
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index: z.number().int().nonnegative() }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({
      stop_reason: StopReasonSchema.nullable().optional(),
      stop_sequence: z.string().nullable().optional(),
    }),
    usage: UsageDeltaSchema.optional(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({
    type: z.literal('error'),
    error: z.looseObject({ type: z.string(), message: z.string() }),
  }),
]);
export type StreamEvent = z.infer<typeof StreamEventSchema>;

/** Event types this module understands; others are skipped, as the API asks clients to do. */
export const KNOWN_STREAM_EVENT_TYPES: ReadonlySet<string> = new Set(
  StreamEventSchema.options.map((option) => option.shape.type.value),
);

/** Error type names the API uses for each HTTP status. */
export const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function errorTypeForStatus(status: number): string {
  return ERROR_TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}
