import { z } from 'zod';

/**
 * Codex CLI's `exec --json` output (codex-cli 0.171), one event a line: only the fields the translator
 * reads, everything else passed through, so newer versions with more fields still parse.
 */

/** Token counts of the whole session so far (a resumed or forked session's include the earlier runs'). */
export const CodexUsage = z.looseObject({
  input_tokens: z.number().int().nonnegative().default(0),
  cached_input_tokens: z.number().int().nonnegative().default(0),
  cache_write_input_tokens: z.number().int().nonnegative().default(0),
  output_tokens: z.number().int().nonnegative().default(0),
});
export type CodexUsage = z.infer<typeof CodexUsage>;

const Item = z.union([
  z.looseObject({ id: z.string(), type: z.literal('agent_message'), text: z.string() }),
  z.looseObject({ id: z.string(), type: z.literal('reasoning'), text: z.string() }),
  z.looseObject({
    id: z.string(),
    type: z.literal('command_execution'),
    command: z.string(),
    aggregated_output: z.string().default(''),
    exit_code: z.number().nullish(),
    status: z.string().optional(),
  }),
  z.looseObject({
    id: z.string(),
    type: z.literal('file_change'),
    changes: z.array(z.looseObject({ path: z.string(), kind: z.string() })).default([]),
    status: z.string().optional(),
  }),
  z.looseObject({
    id: z.string(),
    type: z.literal('mcp_tool_call'),
    server: z.string(),
    tool: z.string(),
    arguments: z.unknown().optional(),
    result: z.unknown().optional(),
    error: z.looseObject({ message: z.string() }).nullish(),
    status: z.string().optional(),
  }),
  z.looseObject({ id: z.string(), type: z.literal('web_search'), query: z.string() }),
  z.looseObject({ id: z.string(), type: z.literal('error'), message: z.string() }),
  // todo_list and whatever newer versions add: read, not shown.
  z.looseObject({ id: z.string(), type: z.string() }),
]);
export type CodexItem = z.infer<typeof Item>;

export const CodexEvent = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('thread.started'), thread_id: z.string() }),
  z.looseObject({ type: z.literal('turn.started') }),
  z.looseObject({ type: z.enum(['item.started', 'item.updated', 'item.completed']), item: Item }),
  z.looseObject({ type: z.literal('turn.completed'), usage: CodexUsage.optional() }),
  z.looseObject({
    type: z.literal('turn.failed'),
    error: z.looseObject({ message: z.string() }).optional(),
  }),
  z.looseObject({ type: z.literal('error'), message: z.string() }),
]);
export type CodexEvent = z.infer<typeof CodexEvent>;
