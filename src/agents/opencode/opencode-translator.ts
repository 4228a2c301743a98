import { z } from 'zod';
import { parseRetryAfter } from '../../llm/retry-after.ts';
import type { Usage } from '../../llm/schemas.ts';
import {
  USAGE_LIMIT_MIN_RESET_MS,
  type UsageLimit,
  usageLimitOfHttp,
} from '../../llm/usage-limit/usage-limit.ts';
import { parseJsonLine } from '../json-line.ts';
import { engineToolName, OPENCODE_NAMING } from '../mcp/tool-names.ts';
import type { Translator } from '../spawn-agent.ts';
import { type StreamLine, toolResultLine } from '../stream-line.ts';
import { RETRY_EVENT, TOOL_START_EVENT } from './opencode-cli.ts';

/**
 * opencode's `run --format json` events, as far as Ribosome reads them (loose: newer versions may add
 * fields). Every event carries the run's `sessionID`; parts carry their model response's `messageID`.
 */
const Tokens = z.looseObject({
  input: z.number().nonnegative().default(0),
  output: z.number().nonnegative().default(0),
  reasoning: z.number().nonnegative().default(0),
  cache: z
    .looseObject({ read: z.number().nonnegative().default(0), write: z.number().nonnegative().default(0) })
    .default({ read: 0, write: 0 }),
});

const ToolState = z.looseObject({
  status: z.string(),
  input: z.record(z.string(), z.unknown()).default({}),
  output: z.string().optional(),
  error: z.string().optional(),
  /** A shell command's: `exit` is its exit status (opencode "completes" a command that failed). */
  metadata: z.looseObject({ exit: z.number().nullable().optional() }).optional(),
});

/** The tool opencode puts in place of a call it cannot run: its input names the tool asked for. */
const INVALID_TOOL = 'invalid';

/** The tool the model called: for opencode's `invalid` stand-in, the one its input names. */
function calledTool(tool: string, input: Record<string, unknown>): string {
  return tool === INVALID_TOOL && typeof input.tool === 'string' ? input.tool : tool;
}

const OpencodeEvent = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('step_start'), sessionID: z.string() }),
  // Printed by Ribosome's plugin (TOOL_START_PLUGIN) as a tool starts, any session's (a subagent's too).
  z.looseObject({
    type: z.literal(TOOL_START_EVENT),
    sessionID: z.string(),
    callID: z.string(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()).default({}),
  }),
  // Printed by Ribosome's plugin as opencode schedules a retry of a failed model request.
  z.looseObject({
    type: z.literal(RETRY_EVENT),
    sessionID: z.string(),
    attempt: z.number().optional(),
    message: z.string().optional(),
    next: z.number(),
  }),
  z.looseObject({
    type: z.literal('text'),
    sessionID: z.string(),
    part: z.looseObject({ messageID: z.string(), text: z.string() }),
  }),
  z.looseObject({
    type: z.literal('reasoning'),
    sessionID: z.string(),
    part: z.looseObject({ messageID: z.string(), text: z.string() }),
  }),
  z.looseObject({
    type: z.literal('tool_use'),
    sessionID: z.string(),
    part: z.looseObject({ messageID: z.string(), callID: z.string(), tool: z.string(), state: ToolState }),
  }),
  z.looseObject({
    type: z.literal('step_finish'),
    sessionID: z.string(),
    part: z.looseObject({
      messageID: z.string(),
      reason: z.string().optional(),
      tokens: Tokens.optional(),
      cost: z.number().nonnegative().optional(),
    }),
  }),
  z.looseObject({
    type: z.literal('error'),
    sessionID: z.string().optional(),
    error: z.looseObject({
      name: z.string().optional(),
      data: z
        .looseObject({
          message: z.string().optional(),
          statusCode: z.number().optional(),
          responseHeaders: z.record(z.string(), z.string()).optional(),
          responseBody: z.string().optional(),
        })
        .optional(),
    }),
  }),
]);
type OpencodeEvent = z.infer<typeof OpencodeEvent>;

/** How a turn ended badly, as the `result` line says it. */
type Failure = { message: string; status: number | null; retryAfterMs?: number; usageLimit?: UsageLimit };

/**
 * Turns opencode's JSON events into the stream-json lines the engine maps (src/agents/stream-line.ts):
 * a `system` init with the session at the first event; per model response (`messageID`) its text,
 * reasoning and tool calls as `assistant` lines, each tool's result as a `user` tool_result, and its
 * usage on an `assistant` line of its own at its `step_finish`; at the end a `result`: success when the
 * last step finished for good (`stop`, not `tool-calls`) and no `error` came, with the process's summed
 * usage and opencode's cost (its own price table: 0 for a model it does not know).
 *
 * opencode prints a tool call once it has ended, with its result. Ribosome's plugin prints a line as a
 * tool of the run's session starts: its tool_use goes out then (while it runs, a call is open), and the
 * later event adds its result only; a call the plugin did not announce (one refused before it ran)
 * goes out with its result. A call still open at the end gets a result saying opencode ended first.
 * The plugin's line comes before opencode's events of the same response (they reach its printer
 * later), so its tool_use carries a message id of its own. Stateful: one per process. Pure otherwise.
 */
export function opencodeTranslator(options: {
  model: string;
  now?: () => number;
  /** The codon's MCP servers: their tools (`<server>_<tool>`) are named `mcp__<server>__<tool>`. */
  mcpServers?: readonly string[];
  /** Called once when the translator gave the run up (a retry a usage limit away): stop the process. */
  onGiveUp?: () => void;
}): Translator {
  const now = options.now ?? Date.now;
  const servers = options.mcpServers ?? [];
  /** The tool the model called, as the engine names it. */
  const toolName = (tool: string, input: Record<string, unknown>) =>
    engineToolName(calledTool(tool, input), servers, OPENCODE_NAMING);
  let sessionId: string | undefined;
  let lastText: string | undefined;
  let lastReason: string | undefined;
  let failure: Failure | undefined;
  /** Given up on a usage limit: what opencode prints as it is stopped adds nothing. */
  let gaveUp = false;
  let cost = 0;
  /** Calls whose tool_use went out as they started, without their result yet (in order). */
  const started = new Set<string>();
  const usage: Required<{ [K in keyof Usage]: number }> = {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const session = () => (sessionId ? { session_id: sessionId } : {});
  const assistant = (id: string, content: unknown[], extra: { usage?: Usage } = {}): StreamLine =>
    ({
      type: 'assistant',
      ...session(),
      message: { id, model: options.model, content, ...extra },
    }) as StreamLine;
  function translate(event: OpencodeEvent): StreamLine[] {
    const out: StreamLine[] = [];
    const id = event.sessionID;
    // A subagent's tool or retry: opencode prints nothing else of that session.
    if (
      (event.type === TOOL_START_EVENT || event.type === RETRY_EVENT) &&
      sessionId !== undefined &&
      id !== sessionId
    )
      return out;
    if (gaveUp) return out;
    if (id && sessionId === undefined) {
      sessionId = id;
      out.push({ type: 'system', subtype: 'init', session_id: id, model: options.model });
    }
    switch (event.type) {
      case 'step_start':
        return out;
      case RETRY_EVENT: {
        const waitMs = Math.max(0, event.next - now());
        const said = event.message ?? 'the provider refused the request';
        if (waitMs < USAGE_LIMIT_MIN_RESET_MS) {
          out.push({
            type: 'system',
            subtype: 'api_retry',
            ...(event.attempt === undefined ? {} : { attempt: event.attempt }),
            retry_delay_ms: waitMs,
            error: said,
          });
          return out;
        }
        // A retry hours away is a usage limit: waiting inside opencode would hold the codon that long.
        gaveUp = true;
        failure = {
          message: `${said} (opencode would retry in ${Math.round(waitMs / 60_000)} min: a usage limit)`,
          status: null,
          usageLimit: { resetsAtMs: event.next },
        };
        options.onGiveUp?.();
        return out;
      }
      case TOOL_START_EVENT:
        if (started.has(event.callID)) return out;
        started.add(event.callID);
        out.push(
          assistant(`tool-${event.callID}`, [
            {
              type: 'tool_use',
              id: event.callID,
              name: toolName(event.tool, event.input),
              input: event.input,
            },
          ]),
        );
        return out;
      case 'text':
        lastText = event.part.text;
        out.push(assistant(event.part.messageID, [{ type: 'text', text: event.part.text }]));
        return out;
      case 'reasoning':
        out.push(assistant(event.part.messageID, [{ type: 'thinking', thinking: event.part.text }]));
        return out;
      case 'tool_use': {
        const { callID, tool, state } = event.part;
        // opencode's `invalid` tool stands for a call it refused (an unknown tool, bad arguments):
        // it "completes", saying why the call failed.
        // And a shell command that exited non-zero failed, as Claude Code, Codex and the built-in
        // agent report it.
        const exit = state.metadata?.exit;
        const isError =
          state.status === 'error' || tool === INVALID_TOOL || (typeof exit === 'number' && exit !== 0);
        if (!started.delete(callID))
          out.push(
            assistant(event.part.messageID, [
              { type: 'tool_use', id: callID, name: toolName(tool, state.input), input: state.input },
            ]),
          );
        const said = state.status === 'error' ? state.error : state.output;
        out.push(toolResultLine(callID, said ?? state.error ?? '', isError, sessionId));
        return out;
      }
      case 'step_finish': {
        lastReason = event.part.reason;
        cost += event.part.cost ?? 0;
        const t = event.part.tokens;
        if (!t) return out;
        const step: Usage = {
          input_tokens: t.input,
          // opencode counts reasoning apart; Anthropic's output_tokens include it.
          output_tokens: t.output + t.reasoning,
          cache_creation_input_tokens: t.cache.write,
          cache_read_input_tokens: t.cache.read,
        };
        usage.input_tokens += step.input_tokens;
        usage.output_tokens += step.output_tokens;
        usage.cache_creation_input_tokens += step.cache_creation_input_tokens ?? 0;
        usage.cache_read_input_tokens += step.cache_read_input_tokens ?? 0;
        out.push(assistant(event.part.messageID, [], { usage: step }));
        return out;
      }
      case 'error': {
        const data = event.error.data;
        const said = data?.message ?? event.error.name ?? 'opencode reported an error';
        const message = data?.statusCode === 404 ? notFound(said) : said;
        const headers = data?.responseHeaders ?? {};
        const get = (name: string) => headers[name] ?? null;
        const retryAfter = parseRetryAfter({ get }, now());
        const status = data?.statusCode ?? (event.error.name === 'ProviderAuthError' ? 401 : null);
        const limit =
          failure?.usageLimit ??
          (status === null ? null : usageLimitOfHttp(status, { get }, data?.responseBody ?? said, now()));
        failure = {
          message: failure ? `${failure.message}\n${message}` : message,
          status,
          ...(retryAfter === null ? {} : { retryAfterMs: retryAfter }),
          ...(limit ? { usageLimit: limit } : {}),
        };
        return out;
      }
    }
  }

  return {
    line(text) {
      const parsed = parseJsonLine(text, OpencodeEvent);
      if (parsed.ok) return { ok: true, lines: translate(parsed.value) };
      // An event type of a newer opencode: nothing the engine needs from it.
      const type = (parsed.json as { type?: unknown } | null | undefined)?.type;
      return typeof type === 'string' && !OPENCODE_EVENTS.has(type) ? { ok: true, lines: [] } : parsed;
    },
    end() {
      const finished = failure === undefined && lastReason !== undefined && lastReason !== 'tool-calls';
      const why: Failure = failure ?? {
        message: 'opencode ended without finishing its turn',
        status: null,
      };
      const unfinished = [...started].map((callID) =>
        toolResultLine(
          callID,
          'opencode ended before this tool call did; its result was not seen',
          true,
          sessionId,
        ),
      );
      started.clear();
      return [
        ...unfinished,
        {
          type: 'result',
          subtype: finished ? 'success' : 'error_during_execution',
          is_error: !finished,
          result: finished ? (lastText ?? '') : why.message,
          ...session(),
          api_error_status: finished ? null : why.status,
          ...(finished || why.retryAfterMs === undefined ? {} : { retry_after_ms: why.retryAfterMs }),
          ...(finished || !why.usageLimit
            ? {}
            : { usage_limit: { resets_at_ms: why.usageLimit.resetsAtMs } }),
          usage: { ...usage },
          total_cost_usd: cost,
        },
      ];
    },
  };
}

/**
 * A 404's text as codex and gemini say it: Anthropic answers a model it does not have with just
 * `model: <name>` (not_found_error), which opencode passes on as it came.
 */
export function notFound(message: string): string {
  const model = /^model:\s*(\S+)\s*$/.exec(message)?.[1];
  return model
    ? `model ${model} is not found at the provider (404: ${message})`
    : `not found (404): ${message}`;
}

const OPENCODE_EVENTS = new Set([
  'step_start',
  TOOL_START_EVENT,
  RETRY_EVENT,
  'text',
  'reasoning',
  'tool_use',
  'step_finish',
  'error',
]);
