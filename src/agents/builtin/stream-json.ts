/**
 * The lines the built-in agent prints: Claude Code's headless `stream-json` (one JSON object per
 * line), the same shapes the real CLI emits (see test/agents/fixtures/claude-stream.jsonl), so the
 * engine reads both agents with one parser.
 */
import { z } from 'zod';
import { MessageSchema } from '../../llm/schemas.ts';

const base = { session_id: z.string(), uuid: z.string() };

export const InitLineSchema = z.object({
  type: z.literal('system'),
  subtype: z.literal('init'),
  cwd: z.string(),
  tools: z.array(z.string()),
  mcp_servers: z.array(z.unknown()),
  model: z.string(),
  permissionMode: z.string(),
  apiKeySource: z.string(),
  ...base,
});

export const ApiRetryLineSchema = z.object({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  /** 1-based number of the retry about to happen. */
  attempt: z.number().int().positive(),
  max_retries: z.number().int().nonnegative(),
  retry_delay_ms: z.number().nonnegative(),
  error_status: z.number().int().nullable(),
  /** rate_limit, overloaded, server_error, connection_error, ... */
  error: z.string(),
  ...base,
});

export const AssistantLineSchema = z.object({
  type: z.literal('assistant'),
  /** The message so far, holding exactly one content block. */
  message: MessageSchema,
  parent_tool_use_id: z.null(),
  request_id: z.string().nullable().optional(),
  /** Set on the synthetic message that reports an API error. */
  error: z.string().optional(),
  ...base,
});

export const ToolResultContentSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.string(),
  is_error: z.boolean(),
});

export const UserLineSchema = z.object({
  type: z.literal('user'),
  message: z.object({ role: z.literal('user'), content: z.array(ToolResultContentSchema) }),
  parent_tool_use_id: z.null(),
  timestamp: z.string(),
  ...base,
});

/** A message of the agent's input, printed back as the agent takes it up (`--replay-user-messages`). */
export const ReplayLineSchema = z.object({
  type: z.literal('user'),
  message: z.object({
    role: z.literal('user'),
    content: z.array(z.object({ type: z.literal('text'), text: z.string() })),
  }),
  parent_tool_use_id: z.null(),
  timestamp: z.string(),
  isReplay: z.literal(true),
  ...base,
});

export const ResultUsageSchema = z.object({
  input_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
  cache_read_input_tokens: z.number(),
  output_tokens: z.number(),
  server_tool_use: z.object({ web_search_requests: z.number(), web_fetch_requests: z.number() }),
  service_tier: z.string(),
});

export const ModelUsageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  webSearchRequests: z.number(),
  costUSD: z.number(),
});

export const ResultLineSchema = z.object({
  type: z.literal('result'),
  /** As Claude Code does, an API failure is subtype success with is_error true and api_error_status. */
  subtype: z.enum(['success', 'error_max_turns', 'error_during_execution']),
  is_error: z.boolean(),
  api_error_status: z.number().int().nullable(),
  /** Ours: the provider's retry-after (ms) of the API error that ended the run; the engine honours it. */
  retry_after_ms: z.number().nonnegative().optional(),
  /** Ours: the run ended on a usage limit; when it resets (epoch ms), null when not said. */
  usage_limit: z.object({ resets_at_ms: z.number().nullable() }).optional(),
  duration_ms: z.number(),
  duration_api_ms: z.number(),
  num_turns: z.number().int().nonnegative(),
  result: z.string().optional(),
  stop_reason: z.string().nullable(),
  total_cost_usd: z.number(),
  usage: ResultUsageSchema,
  modelUsage: z.record(z.string(), ModelUsageSchema),
  permission_denials: z.array(z.unknown()),
  terminal_reason: z.string().optional(),
  errors: z.array(z.string()).optional(),
  ...base,
});

export const StreamJsonLineSchema = z.union([
  InitLineSchema,
  ApiRetryLineSchema,
  AssistantLineSchema,
  UserLineSchema,
  ReplayLineSchema,
  ResultLineSchema,
]);

export type InitLine = z.infer<typeof InitLineSchema>;
export type ApiRetryLine = z.infer<typeof ApiRetryLineSchema>;
export type AssistantLine = z.infer<typeof AssistantLineSchema>;
export type UserLine = z.infer<typeof UserLineSchema>;
export type ReplayLine = z.infer<typeof ReplayLineSchema>;
export type ToolResultContent = z.infer<typeof ToolResultContentSchema>;
export type ResultLine = z.infer<typeof ResultLineSchema>;
export type ResultUsage = z.infer<typeof ResultUsageSchema>;
export type ModelUsage = z.infer<typeof ModelUsageSchema>;
export type StreamJsonLine = z.infer<typeof StreamJsonLineSchema>;
