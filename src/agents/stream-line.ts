import { z } from 'zod';
import { ModelUsageEntry } from '../core/protocol/index.ts';
import { UsageSchema } from '../llm/schemas.ts';

/**
 * The engine's reading of Claude Code's headless stream-json: only the fields it uses, everything
 * else passed through, so newer CLI versions with more fields still parse.
 */
const Usage = UsageSchema;

const ContentBlock = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('thinking'), thinking: z.string() }),
  z.looseObject({
    type: z.literal('tool_use'),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()).default({}),
  }),
  z.looseObject({ type: z.string() }),
]);

const ToolResultContent = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
]);

export const StreamLine = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('system'),
    subtype: z.string(),
    session_id: z.string().optional(),
    model: z.string().optional(),
    attempt: z.number().optional(),
    max_retries: z.number().optional(),
    retry_delay_ms: z.number().optional(),
    error_status: z.number().nullish(),
    error: z.string().optional(),
    /** init: the MCP servers the agent started and how each went (`{name, status}`, Claude Code's). */
    mcp_servers: z.array(z.unknown()).optional(),
  }),
  z.looseObject({
    type: z.literal('assistant'),
    session_id: z.string().optional(),
    message: z.looseObject({
      id: z.string(),
      model: z.string().optional(),
      content: z.array(ContentBlock),
      usage: Usage.optional(),
    }),
  }),
  z.looseObject({
    type: z.literal('user'),
    session_id: z.string().optional(),
    /** A message of the agent's stream-json input, printed back as it takes it up (--replay-user-messages). */
    isReplay: z.boolean().optional(),
    message: z.looseObject({
      content: z.union([
        z.string(),
        z.array(
          z.union([
            z.looseObject({
              type: z.literal('tool_result'),
              tool_use_id: z.string(),
              content: ToolResultContent.optional(),
              is_error: z.boolean().optional(),
            }),
            z.looseObject({ type: z.string() }),
          ]),
        ),
      ]),
    }),
  }),
  z.looseObject({
    type: z.literal('result'),
    subtype: z.string(),
    is_error: z.boolean(),
    api_error_status: z.number().nullish(),
    /** Ours (built-in agent): the provider's retry-after of the API error that ended the run. */
    retry_after_ms: z.number().nullish(),
    /**
     * Ours: the run ended on a usage limit (a subscription window, a quota used up until a reset),
     * not a short rate limit; `resets_at_ms` (epoch ms) when the agent or provider said when it resets.
     * Printed by the translators and the built-in agent; for Claude Code the adapter reads its words.
     */
    usage_limit: z.object({ resets_at_ms: z.number().nullish() }).nullish(),
    result: z.string().optional(),
    /** Why a run that failed before any answer failed (Claude Code's and the built-in agent's error_during_execution). */
    errors: z.array(z.string()).optional(),
    session_id: z.string().optional(),
    total_cost_usd: z.number().optional(),
    duration_ms: z.number().optional(),
    num_turns: z.number().optional(),
    usage: Usage.optional(),
    modelUsage: z.record(z.string(), ModelUsageEntry.loose()).optional(),
  }),
]);
export type StreamLine = z.infer<typeof StreamLine>;

/**
 * A `user` line carrying one tool call's result, as Claude Code prints it: what a translator emits
 * when its CLI reports a tool's end (or the run ended first), in the session when it is known.
 */
export function toolResultLine(
  toolUseId: string,
  content: string,
  isError: boolean,
  sessionId?: string,
): StreamLine {
  return {
    type: 'user',
    ...(sessionId ? { session_id: sessionId } : {}),
    message: { content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }] },
  };
}

export { ENDED_FROM_OUTSIDE } from '../core/protocol/tool-ended.ts';
