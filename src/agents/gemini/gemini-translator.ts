import { z } from 'zod';
import { parseJsonLine } from '../json-line.ts';
import { engineToolName, GEMINI_NAMING } from '../mcp/tool-names.ts';
import type { Translator } from '../spawn-agent.ts';
import { ENDED_FROM_OUTSIDE, type StreamLine, toolResultLine } from '../stream-line.ts';
import { type SessionSpend, type ShellEnd, spentSince } from './gemini-session.ts';
import { geminiUsageLimitOf } from './gemini-usage-limit.ts';

/**
 * Gemini CLI's headless `--output-format stream-json` (0.61), read as the stream-json lines the engine
 * knows. Only the fields used are read; the rest passes, so newer CLIs with more fields still parse.
 */
const ModelStats = z.looseObject({
  total_tokens: z.number().default(0),
  input_tokens: z.number().default(0),
  output_tokens: z.number().default(0),
  cached: z.number().default(0),
});
type ModelStats = z.infer<typeof ModelStats>;

export const GeminiEvent = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('init'), session_id: z.string(), model: z.string().optional() }),
  z.looseObject({
    type: z.literal('message'),
    role: z.string(),
    content: z.string(),
    delta: z.boolean().optional(),
  }),
  z.looseObject({
    type: z.literal('tool_use'),
    tool_name: z.string(),
    tool_id: z.string(),
    parameters: z.record(z.string(), z.unknown()).default({}),
  }),
  z.looseObject({
    type: z.literal('tool_result'),
    tool_id: z.string(),
    status: z.string(),
    output: z.string().optional(),
    error: z.looseObject({ message: z.string().optional() }).optional(),
  }),
  /** Warnings and errors along the way (a loop detected, a stream that ended without a finish reason). */
  z.looseObject({ type: z.literal('error'), severity: z.string().optional(), message: z.string() }),
  z.looseObject({
    type: z.literal('result'),
    status: z.string(),
    error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }).optional(),
    stats: z.looseObject({ models: z.record(z.string(), ModelStats).default({}) }).optional(),
  }),
]);
export type GeminiEvent = z.infer<typeof GeminiEvent>;

/** What Gemini CLI appends to an API error's text when the API answered 429 (gemini-api-key or Vertex). */
const RATE_LIMITED = /\nPlease wait and try again later\. To increase your limits/;
/**
 * A response stream that broke off: what Gemini CLI says when the API sent an error inside a 200 stream
 * (or ended it early). The API failed mid-answer, as a bad gateway would: read as a 502, an api-error
 * worth retrying, not an unknown failure.
 */
const STREAM_BROKE = /^Model stream ended without a finish reason/;
/** An API error whose text is Google's error JSON (`[API Error: {"error":{"code":500,...}}]`). */
const ERROR_CODE = /"code"\s*:\s*(\d{3})\b/;
/**
 * Google's words for a model it does not have (`models/x is not found for API version v1beta, or is
 * not supported for generateContent`): Gemini CLI passes a 404's text on without its status, and exits 1.
 */
const MODEL_NOT_FOUND = /\bis not found for API version\b/;
/** How Gemini CLI names every 404 in the error report it prints on stderr (`ModelNotFoundError: <text>`). */
const NOT_FOUND_ERROR = /\bModelNotFoundError\b/;

/**
 * The HTTP status of the API error a result reports, when its text tells: Gemini CLI prints no status
 * field, but adds its rate-limit advice to a 429 and keeps Google's error JSON in some messages. Null
 * when the text does not say (the adapter then reads the exit code: see geminiExitStatus).
 */
export function statusOfError(message: string): number | null {
  if (RATE_LIMITED.test(message)) return 429;
  if (STREAM_BROKE.test(message)) return 502;
  if (MODEL_NOT_FOUND.test(message)) return 404;
  const code = ERROR_CODE.exec(message)?.[1];
  return code ? Number(code) : null;
}

export type GeminiTranslatorOptions = {
  /** What the session recorded as spent when this run started (a resumed or forked one's earlier runs). */
  before?: SessionSpend;
  /** What session `id` records as spent now (its session file), for a run that ends without a result. */
  readSpent?: (sessionId: string) => SessionSpend | undefined;
  /** How shell call `toolId` ended, as session `sessionId` recorded it (its stream says only "success"). */
  readShellEnd?: (sessionId: string, toolId: string) => ShellEnd | undefined;
  /** The codon's MCP servers: their tools (`mcp_<server>_<tool>`) are named `mcp__<server>__<tool>`. */
  mcpServers?: readonly string[];
  /** [Date.now] The clock a usage limit's retry delay is read with. */
  now?: () => number;
};

/** Gemini CLI's shell tool: a command that exits non-zero is still a "success" in its stream. */
const SHELL_TOOL = 'run_shell_command';

/**
 * The HTTP status Gemini CLI's stderr tells when its result does not: it reports a 404 (whatever the
 * provider's text) as a ModelNotFoundError, with no status in its result and exit code 1. Null else.
 */
export function statusOfStderr(stderr: string): number | null {
  return NOT_FOUND_ERROR.test(stderr) ? 404 : null;
}

/**
 * A translator for one Gemini CLI process. Gemini CLI streams the model's text in pieces and reports
 * tokens once, per model, at the end of the run; so text is gathered into one text block per model
 * response (flushed at its tool calls or at the end), each response gets its own message id (a new one
 * after tool results), and the run's usage becomes one assistant line per model without content, just
 * before the result, for the engine to price (Gemini CLI reports no cost). A run that ends without its
 * result (stopped, timed out, killed) reports what its session file recorded as spent meanwhile
 * (`readSpent`), the same way.
 */
export function geminiTranslator(options: GeminiTranslatorOptions = {}): Translator {
  const now = options.now ?? Date.now;
  let sessionId: string | undefined;
  let model: string | undefined;
  let response = 0;
  let afterResults = true;
  let text = '';
  /** The text of the latest model response: a successful result's `result`. */
  let lastText = '';
  let lastError: string | undefined;
  let ended = false;
  /** Tool calls started and not yet answered: a run ended meanwhile closes them (see end()). */
  const open = new Set<string>();
  const shellCalls = new Set<string>();
  /**
   * Shell results the stream called successful, held until the model's next move: by then the session
   * file has the exit code the model was told, and one that is not 0 makes the result a failure.
   */
  const held: Array<{ id: string; content: string }> = [];
  const release = (): StreamLine[] =>
    held.splice(0).map(({ id, content }) => {
      const end = sessionId ? options.readShellEnd?.(sessionId, id) : undefined;
      const failed = end && (end.signal !== null || (end.exitCode !== null && end.exitCode !== 0));
      if (!failed) return toolResultLine(id, content, false, sessionId);
      const status = end.signal !== null ? `Killed by ${end.signal}` : `Exit code ${end.exitCode}`;
      return toolResultLine(id, `${status}\n${content}`.trimEnd(), true, sessionId);
    });

  const messageId = () => `${sessionId ?? 'gemini'}-${response}`;
  const assistant = (content: Extract<StreamLine, { type: 'assistant' }>['message']['content']) =>
    ({
      type: 'assistant',
      ...(sessionId ? { session_id: sessionId } : {}),
      message: { id: messageId(), ...(model ? { model } : {}), content },
    }) as const;

  /** A new model response begins with content after tool results (or the prompt). */
  const responding = () => {
    if (!afterResults) return;
    afterResults = false;
    response += 1;
    lastText = '';
  };

  const flushText = (): StreamLine[] => {
    if (text === '') return [];
    const line = assistant([{ type: 'text', text }]);
    lastText += text;
    text = '';
    return [line];
  };

  /** Appends one assistant line per model without content, with its usage; returns their sum. */
  const usageLines = (byModel: Record<string, ModelStats>, out: StreamLine[]): AnthropicUsage => {
    const models = Object.entries(byModel).filter(([, s]) => s.total_tokens > 0);
    models.forEach(([name, stats], index) => {
      out.push({
        type: 'assistant',
        ...(sessionId ? { session_id: sessionId } : {}),
        message: { id: `${messageId()}-usage-${index}`, model: name, content: [], usage: usageOf(stats) },
      });
    });
    return models.map(([, s]) => usageOf(s)).reduce(addUsage, usageOf(undefined));
  };

  const result = (
    isError: boolean,
    message: string,
    status: number | null,
    usage?: AnthropicUsage,
  ): StreamLine => ({
    type: 'result',
    subtype: isError ? 'error_during_execution' : 'success',
    is_error: isError,
    result: message,
    api_error_status: status,
    ...(sessionId ? { session_id: sessionId } : {}),
    ...(usage ? { usage } : {}),
  });

  function translate(event: GeminiEvent): StreamLine[] {
    switch (event.type) {
      case 'init':
        sessionId = event.session_id;
        model = event.model ?? model;
        return [
          {
            type: 'system',
            subtype: 'init',
            session_id: event.session_id,
            ...(event.model ? { model: event.model } : {}),
          },
        ];
      case 'message':
        // The prompt is echoed as a user message: the engine has it already.
        if (event.role !== 'assistant') return [];
        responding();
        text += event.content;
        return [];
      case 'tool_use':
        responding();
        open.add(event.tool_id);
        if (event.tool_name === SHELL_TOOL) shellCalls.add(event.tool_id);
        return [
          ...flushText(),
          assistant([
            {
              type: 'tool_use',
              id: event.tool_id,
              name: engineToolName(event.tool_name, options.mcpServers ?? [], GEMINI_NAMING),
              input: event.parameters,
            },
          ]),
        ];
      case 'tool_result': {
        afterResults = true;
        open.delete(event.tool_id);
        const content = event.output ?? event.error?.message ?? '';
        if (event.status !== 'error' && shellCalls.delete(event.tool_id)) {
          held.push({ id: event.tool_id, content });
          return flushText();
        }
        return [...flushText(), toolResultLine(event.tool_id, content, event.status === 'error', sessionId)];
      }
      case 'error':
        lastError = event.message;
        return [];
      case 'result': {
        ended = true;
        const out = flushText();
        const usage = usageLines(event.stats?.models ?? {}, out);
        if (event.status === 'success') {
          out.push(result(false, lastText, null, usage));
          return out;
        }
        const message =
          event.error?.message ?? lastError ?? `Gemini CLI ended with status ${event.status} and no message`;
        const line = result(true, message, statusOfError(message), usage);
        const limit = geminiUsageLimitOf(message, now());
        out.push(limit ? { ...line, usage_limit: { resets_at_ms: limit.resetsAtMs } } : line);
        return out;
      }
    }
  }

  return {
    line(raw) {
      const parsed = parseJsonLine(raw, GeminiEvent);
      if (!parsed.ok) return parsed;
      // Any move but another result comes after the held shell results reached the session file.
      const before = parsed.value.type === 'tool_result' ? [] : release();
      return { ok: true, lines: [...before, ...translate(parsed.value)] };
    },
    end() {
      if (ended) return release();
      ended = true;
      const out = [...release(), ...flushText()];
      // Calls cut short (a halt, a timeout, a stop, a crash): Gemini CLI never reports their results.
      for (const id of open) out.push(toolResultLine(id, ENDED_FROM_OUTSIDE, true, sessionId));
      open.clear();
      // Its responses so far, as its session file recorded them: stream-json reports none before the end.
      const now = sessionId ? options.readSpent?.(sessionId) : undefined;
      const usage = now ? usageLines(spentSince(now, options.before), out) : undefined;
      const spent = usage && (usage.input_tokens > 0 || usage.output_tokens > 0) ? usage : undefined;
      out.push(result(true, lastError ?? 'Gemini CLI exited without reporting a result', null, spent));
      return out;
    },
  };
}

type AnthropicUsage = { input_tokens: number; output_tokens: number; cache_read_input_tokens: number };

/**
 * Gemini's counts in the Anthropic names the engine prices: its prompt count includes the cached
 * tokens, so input is the rest; output is everything past the prompt (thinking tokens are billed as
 * output, and stream-json lists them only in the total).
 */
export function usageOf(stats: ModelStats | undefined): AnthropicUsage {
  if (!stats) return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 };
  const cached = Math.min(stats.cached, stats.input_tokens);
  return {
    input_tokens: stats.input_tokens - cached,
    output_tokens: Math.max(stats.output_tokens, stats.total_tokens - stats.input_tokens),
    cache_read_input_tokens: cached,
  };
}

function addUsage(a: AnthropicUsage, b: AnthropicUsage): AnthropicUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  };
}
