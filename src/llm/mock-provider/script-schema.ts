/**
 * Script format of the scripted provider (`ribosome mock-provider --script FILE`), YAML or JSON.
 *
 * A script answers each model request (Anthropic `POST /v1/messages`, OpenAI `POST /v1/responses`,
 * Gemini `POST /v1beta/models/<model>:generateContent` or `:streamGenerateContent`) with the next turn
 * of the track the request belongs to, written once and sent in the API the request came in. Tracks
 * let several callers (the agent, a sentinel, Claude Code's side requests) be scripted apart.
 *
 *   tracks:                       # optional; checked in order, the first whose `match` fits wins
 *     - name: sentinel
 *       match:                    # every field given must hold (substring tests are case-sensitive)
 *         system: "You watch"     #   system prompt contains
 *         model: claude-haiku     #   request model starts with
 *         firstUser: "Review"     #   first user message contains (stable over a whole conversation)
 *         lastUser: "tool output" #   last user message contains (text and tool_result content)
 *         tools: false            #   the request declares tools (true) or none (false)
 *         header: { x-caller: sentinel }  # request header contains
 *         api: gemini             #   the request's API: anthropic, openai-responses or gemini
 *       turns: [ ... ]
 *       loop: false               # true: start over after the last turn
 *       whenExhausted: { ... }    # overrides the script-level setting for this track
 *   turns: [ ... ]                # the default track: requests that no other track matched
 *   whenExhausted:                # the turn answered once a track has no turns left
 *     content: [{ text: "Done." }]  # this is the default; `error: { status: 500 }` fails instead
 *   defaults: { delayMs: 0, chunkDelayMs: 0 }  # applied to every turn that does not set them
 *
 * A turn is exactly one of:
 *   content: [ blocks ]         a reply; blocks are { text: "..." }, { thinking: "...", signature? }
 *                               or { tool_use: { name: Write, input: {...}, id? } } (a tool call in
 *                               every API: OpenAI function_call, Gemini functionCall)
 *                               A tool_use whose input is a string is a freeform (custom) tool call,
 *                               as Codex's apply_patch: OpenAI custom_tool_call with that text as its
 *                               input; Anthropic and Gemini, which have no freeform tools, get the
 *                               text as an object { input: "<text>" }. `namespace` (OpenAI only): the
 *                               function_call's namespace, as Codex declares MCP tools (mcp__<server>)
 *                               or { mcp_tool: { server: marker, tool: leave_mark, input: {...}, id? } }:
 *                               a call of an MCP server's tool under whatever name the request's
 *                               agent gives it (mcp-tool.ts): Claude Code's mcp__marker__leave_mark,
 *                               Gemini CLI's mcp_marker_leave_mark, opencode's marker_leave_mark,
 *                               Codex's leave_mark in namespace mcp__marker (or, for its code-mode
 *                               models, a script of its `exec` tool calling it). A request that
 *                               declares no such tool gets a text saying it was not offered instead
 *     stopReason: end_turn      optional; default tool_use when a tool_use block is present
 *     usage: { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens }
 *                               optional overrides of the estimated counts; output never passes
 *                               the request's own limit (max_tokens, max_output_tokens,
 *                               generationConfig.maxOutputTokens), as a provider's never does
 *     stallAfterEvents: 3       optional, streaming only: send 3 SSE events, then go silent forever
 *   error: { status: 429, type?, message?, retryAfter?, inStream? }
 *                               an HTTP error with the API's error body; `type` (the API's own error
 *                               type, code or status) defaults from the status per API; retryAfter
 *                               (seconds) becomes the `retry-after` header (and Gemini's RetryInfo);
 *                               inStream: a streaming request gets a 200 stream that fails instead
 *   stall: true                 never answer (until the client leaves or the provider stops)
 *   usageLimit: { resetsIn: 60, kind?: subscription | api-key, window?: five_hour | seven_day }
 *                               the account's usage limit, reached: every request of the track is
 *                               refused until the reset (now + resetsIn seconds at the first refusal;
 *                               a CLI retrying meanwhile is refused again), then the next turn plays.
 *                               Worded as each provider does (usage-limit-replies.ts): Anthropic's
 *                               subscription 429 with its anthropic-ratelimit-unified-* headers, or for
 *                               an API key its 400 "You have reached your specified API usage limits"
 *                               (whose reset is a whole minute, UTC); the ChatGPT backend's 429
 *                               usage_limit_reached with resets_at, or for an API key OpenAI's
 *                               insufficient_quota (no reset said); Gemini's 429 RESOURCE_EXHAUSTED
 *                               with a daily QuotaFailure and RetryInfo
 * and may also carry:
 *   delayMs: 2000               wait before answering (a long delay is a bounded stall)
 *   chunkDelayMs: 50            wait between SSE events
 *   repeat: 3                   play this turn 3 times in a row
 */
import { z } from 'zod';

const nonNegativeInt = z.number().int().nonnegative();

/**
 * A union told apart by which key is present, so a mistake is reported against the intended variant
 * (`turns[1].error.status: expected number`) instead of zod's bare "Invalid input" for unions.
 */
function keyedUnion<S extends z.ZodType>(variants: Record<string, S>, what: string) {
  const keys = Object.keys(variants);
  return z.unknown().transform((value, ctx): z.output<S> => {
    const present = typeof value === 'object' && value !== null ? keys.filter((key) => key in value) : [];
    const variant = present.length === 1 && present[0] !== undefined ? variants[present[0]] : undefined;
    if (!variant) {
      ctx.addIssue({ code: 'custom', message: `${what} needs exactly one of: ${keys.join(', ')}` });
      return z.NEVER;
    }
    const parsed = variant.safeParse(value);
    if (parsed.success) return parsed.data;
    // The variant's own issues (an unknown key, a bound), so a check can say them as it says a plan's.
    for (const issue of parsed.error.issues) ctx.addIssue(issue as unknown as z.core.$ZodRawIssue);
    return z.NEVER;
  });
}

export const ScriptBlockSchema = keyedUnion(
  {
    text: z.strictObject({ text: z.string() }),
    thinking: z.strictObject({ thinking: z.string(), signature: z.string().optional() }),
    tool_use: z.strictObject({
      tool_use: z.strictObject({
        name: z.string().min(1),
        /** An object (a function call), or a string: a freeform (custom) tool call's raw input. */
        input: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
        id: z.string().min(1).optional(),
        /** OpenAI Responses only: the function's namespace (Codex's MCP tools: `mcp__<server>`). */
        namespace: z.string().min(1).optional(),
      }),
    }),
    mcp_tool: z.strictObject({
      mcp_tool: z.strictObject({
        server: z.string().min(1),
        tool: z.string().min(1),
        input: z.record(z.string(), z.unknown()).default({}),
        id: z.string().min(1).optional(),
      }),
    }),
  },
  'a content block',
);
export type ScriptBlock = z.infer<typeof ScriptBlockSchema>;
/** A block as it goes out: an mcp_tool block resolved against the request (mcp-tool.ts). */
export type WireBlock = Exclude<ScriptBlock, { mcp_tool: unknown }>;
export type McpToolBlock = Extract<ScriptBlock, { mcp_tool: unknown }>;

export const ScriptUsageSchema = z.strictObject({
  input_tokens: nonNegativeInt.optional(),
  output_tokens: nonNegativeInt.optional(),
  cache_creation_input_tokens: nonNegativeInt.optional(),
  cache_read_input_tokens: nonNegativeInt.optional(),
});
export type ScriptUsage = z.infer<typeof ScriptUsageSchema>;

const timing = {
  delayMs: nonNegativeInt.optional(),
  chunkDelayMs: nonNegativeInt.optional(),
  repeat: z.number().int().positive().optional(),
};

export const ReplyTurnSchema = z.strictObject({
  content: z.array(ScriptBlockSchema).min(1),
  stopReason: z.string().min(1).optional(),
  usage: ScriptUsageSchema.optional(),
  stallAfterEvents: nonNegativeInt.optional(),
  ...timing,
});

export const ErrorTurnSchema = z.strictObject({
  error: z.strictObject({
    status: z.number().int().min(400).max(599),
    type: z.string().min(1).optional(),
    message: z.string().optional(),
    retryAfter: z.number().nonnegative().optional(),
    inStream: z.boolean().optional(),
  }),
  ...timing,
});

export const UsageLimitTurnSchema = z.strictObject({
  usageLimit: z.strictObject({
    /** Seconds from the first refusal to the reset. */
    resetsIn: z.number().nonnegative(),
    /** [subscription] Whose limit: a subscription's window (OAuth, ChatGPT login) or an API key's. */
    kind: z.enum(['subscription', 'api-key']).default('subscription'),
    /** [five_hour] Anthropic's subscription window the limit belongs to (its representative claim). */
    window: z.enum(['five_hour', 'seven_day']).default('five_hour'),
  }),
  ...timing,
});

export const StallTurnSchema = z.strictObject({
  stall: z.literal(true),
  ...timing,
});

export const TurnSchema = keyedUnion(
  {
    content: ReplyTurnSchema,
    error: ErrorTurnSchema,
    stall: StallTurnSchema,
    usageLimit: UsageLimitTurnSchema,
  },
  'a turn',
);
export type Turn = z.infer<typeof TurnSchema>;
/** A reply as the script writes it (its blocks may call an MCP tool by server and tool). */
export type ScriptReplyTurn = z.infer<typeof ReplyTurnSchema>;
/** A reply as it is sent: its blocks resolved against the request (mcp-tool.ts). */
export type ReplyTurn = Omit<ScriptReplyTurn, 'content'> & { content: WireBlock[] };
export type ErrorTurn = z.infer<typeof ErrorTurnSchema>;
export type StallTurn = z.infer<typeof StallTurnSchema>;
export type UsageLimitTurn = z.infer<typeof UsageLimitTurnSchema>;
/** A usage limit as it is played: when it resets (epoch ms), fixed at its first refusal. */
export type PlayedUsageLimit = UsageLimitTurn & { resetsAtMs: number };
/** A turn as it is played: a reply's blocks resolved against the request, a limit's reset fixed. */
export type PlayedReply = ReplyTurn | ErrorTurn | StallTurn | PlayedUsageLimit;

/** The wire APIs the provider speaks; a request's API is known from its path. */
export const WireApiSchema = z.enum(['anthropic', 'openai-responses', 'gemini']);
export type WireApi = z.infer<typeof WireApiSchema>;

export const TrackMatchSchema = z
  .strictObject({
    model: z.string().min(1).optional(),
    system: z.string().min(1).optional(),
    firstUser: z.string().min(1).optional(),
    lastUser: z.string().min(1).optional(),
    tools: z.boolean().optional(),
    header: z.record(z.string(), z.string()).optional(),
    api: WireApiSchema.optional(),
  })
  .refine((match) => Object.keys(match).length > 0, 'a match needs at least one condition');
export type TrackMatch = z.infer<typeof TrackMatchSchema>;

export const TrackSchema = z.strictObject({
  name: z.string().min(1),
  match: TrackMatchSchema,
  turns: z.array(TurnSchema).default([]),
  loop: z.boolean().default(false),
  whenExhausted: TurnSchema.optional(),
});
export type Track = z.infer<typeof TrackSchema>;

export const DEFAULT_WHEN_EXHAUSTED: Turn = { content: [{ text: 'Done.' }] };

export const ScriptSchema = z
  .strictObject({
    tracks: z.array(TrackSchema).default([]),
    turns: z.array(TurnSchema).default([]),
    whenExhausted: TurnSchema.default(DEFAULT_WHEN_EXHAUSTED),
    defaults: z
      .strictObject({ delayMs: nonNegativeInt.optional(), chunkDelayMs: nonNegativeInt.optional() })
      .default({}),
  })
  .superRefine((script, ctx) => {
    const seen = new Set<string>(['default']);
    script.tracks.forEach((track, index) => {
      if (seen.has(track.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tracks', index, 'name'],
          message: `duplicate track name "${track.name}"`,
        });
      }
      seen.add(track.name);
    });
  });
export type Script = z.infer<typeof ScriptSchema>;
/** What a script file may contain before defaults are filled in. */
export type ScriptInput = z.input<typeof ScriptSchema>;
