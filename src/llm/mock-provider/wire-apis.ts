/**
 * The APIs the scripted provider speaks, one adapter each: which path a request takes (`routeOf`),
 * how its body maps to the neutral RequestView that scripts match on, and how a scripted turn is
 * worded back (JSON, SSE frames, HTTP errors, a stream that fails). Pure; server.ts does the I/O.
 */

import { errorTypeForStatus } from '../schemas.ts';
import {
  buildGeminiResponse,
  encodeGeminiSse,
  geminiChunksOf,
  geminiErrorBodyOf,
  googleError,
} from './gemini-builder.ts';
import { describeGeminiIssue, GeminiRequestSchema, geminiViewOf } from './gemini-view.ts';
import type { IdSource } from './ids.ts';
import {
  CountTokensRequestSchema,
  describeIssue,
  type RequestHeaders,
  type RequestView,
  viewOf,
  WireRequestSchema,
} from './request-view.ts';
import {
  apiError,
  buildMessage,
  encodeSse,
  errorBodyOf,
  estimateInputTokens,
  estimateTokens,
  streamEventsOf,
} from './response-builder.ts';
import {
  buildResponse,
  encodeResponsesSse,
  openAiError,
  responseEventsOf,
  responsesErrorBodyOf,
  responsesFailureEventsOf,
} from './responses-builder.ts';
import { describeResponsesIssue, ResponsesRequestSchema, responsesViewOf } from './responses-view.ts';
import type { ErrorTurn, PlayedUsageLimit, ReplyTurn, WireApi } from './script-schema.ts';
import { anthropicUsageLimit, geminiUsageLimit, openAiUsageLimit } from './usage-limit-replies.ts';

export type JsonReply = { status: number; body: object; headers?: Record<string, string> };

export type Route = {
  api: WireApi;
  /** `count` answers a token count and consumes no turn. */
  kind: 'turn' | 'count';
  /** Gemini: the model named in the path. */
  model?: string;
  /** Gemini: `:streamGenerateContent` (an SSE stream with `alt=sse`, else a JSON array of chunks). */
  streamMethod?: boolean;
  sse?: boolean;
};

/** One request, accepted: its view, and how any turn is worded back in its API. */
export type Exchange = {
  view: RequestView;
  /** The reply goes out as SSE. */
  stream: boolean;
  reply(turn: ReplyTurn): object;
  frames(turn: ReplyTurn): string[];
  failure(turn: ErrorTurn): JsonReply;
  /** A 200 stream that fails (the turn's `error.inStream`). */
  failureFrames(turn: ErrorTurn): string[];
  /** The account's usage limit, refused as this API's provider does; `now` its clock. */
  usageLimit(turn: PlayedUsageLimit, now: number): JsonReply;
};

export type ExchangeContext = { route: Route; headers: RequestHeaders; ids: IdSource; requestId: string };
type Accepted = { ok: true; exchange: Exchange } | { ok: false; reply: JsonReply };

export type WireAdapter = {
  accept(body: unknown, context: ExchangeContext): Accepted;
  /** Token counting, for the APIs that have a route for it. */
  count?(body: unknown): JsonReply;
  /** An error in this API's shape (bad JSON, body too large, no route). */
  error(status: number, message: string): JsonReply;
};

export const ROUTES_HINT =
  'This scripted provider speaks the Anthropic Messages API (POST /v1/messages, POST /v1/messages/count_tokens), ' +
  'the OpenAI Responses API (POST /v1/responses) and the Gemini API ' +
  '(POST /v1beta/models/<model>:generateContent, :streamGenerateContent?alt=sse, :countTokens).';

const GEMINI_PATH =
  /^\/(?:v1beta|v1alpha|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** The route of a request, or null when no API here serves it. `path` has no trailing slash. */
export function routeOf(method: string, path: string, query: URLSearchParams): Route | null {
  if (method !== 'POST') return null;
  if (path === '/v1/messages') return { api: 'anthropic', kind: 'turn' };
  if (path === '/v1/messages/count_tokens') return { api: 'anthropic', kind: 'count' };
  if (path === '/v1/responses') return { api: 'openai-responses', kind: 'turn' };
  const gemini = GEMINI_PATH.exec(path);
  if (!gemini?.[1]) return null;
  return {
    api: 'gemini',
    kind: gemini[2] === 'countTokens' ? 'count' : 'turn',
    model: safeDecode(gemini[1]),
    streamMethod: gemini[2] === 'streamGenerateContent',
    sse: query.get('alt') === 'sse',
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** 404 naming what the provider speaks, shaped as Google's error under /v1beta, else Anthropic's. */
export function notFoundReply(method: string, path: string): JsonReply {
  const message = `No route for ${method} ${path}. ${ROUTES_HINT}`;
  return /^\/v1(beta|alpha)(\/|$)/.test(path) ? gemini.error(404, message) : anthropic.error(404, message);
}

const refuse = (reply: JsonReply): Accepted => ({ ok: false, reply });

function withRetryAfter(turn: ErrorTurn, body: object): JsonReply {
  const { status, retryAfter } = turn.error;
  return {
    status,
    body,
    ...(retryAfter === undefined ? {} : { headers: { 'retry-after': String(retryAfter) } }),
  };
}

const anthropic: WireAdapter = {
  accept(body, { headers, ids, requestId }) {
    const parsed = WireRequestSchema.safeParse(body);
    if (!parsed.success) return refuse(anthropic.error(400, describeIssue(parsed.error)));
    const request = parsed.data;
    const context = {
      model: request.model,
      inputTokens: estimateInputTokens(request),
      maxOutput: request.max_tokens,
      ids,
    };
    const exchange: Exchange = {
      view: viewOf(request, headers),
      stream: request.stream === true,
      reply: (turn) => buildMessage(turn, context),
      frames: (turn) => streamEventsOf(buildMessage(turn, context)).map(encodeSse),
      failure: (turn) => withRetryAfter(turn, errorBodyOf(turn, requestId)),
      failureFrames: (turn) => {
        const [start] = streamEventsOf(buildMessage({ content: [] }, context));
        const { error } = errorBodyOf(turn, requestId);
        return [...(start ? [start] : []), { type: 'error' as const, error }].map(encodeSse);
      },
      usageLimit: (turn, now) => anthropicUsageLimit(turn, requestId, now),
    };
    return { ok: true, exchange };
  },
  count(body) {
    const count = CountTokensRequestSchema.safeParse(body);
    if (!count.success) return anthropic.error(400, describeIssue(count.error));
    return { status: 200, body: { input_tokens: estimateInputTokens(count.data) } };
  },
  error: (status, message) => ({ status, body: apiError(errorTypeForStatus(status), message) }),
};

const responses: WireAdapter = {
  accept(body, { headers, ids }) {
    const parsed = ResponsesRequestSchema.safeParse(body);
    if (!parsed.success) {
      const { message, param } = describeResponsesIssue(parsed.error);
      return refuse({ status: 400, body: openAiError(message, 'invalid_request_error', null, param) });
    }
    const request = parsed.data;
    const context = {
      model: request.model,
      inputTokens: estimateTokens({
        instructions: request.instructions,
        input: request.input,
        tools: request.tools,
      }),
      ...(request.max_output_tokens ? { maxOutput: request.max_output_tokens } : {}),
      ids,
      createdAt: Math.floor(Date.now() / 1000),
    };
    const exchange: Exchange = {
      view: responsesViewOf(request, headers),
      stream: request.stream === true,
      reply: (turn) => buildResponse(turn, context),
      frames: (turn) => responseEventsOf(buildResponse(turn, context)).map(encodeResponsesSse),
      failure: (turn) => withRetryAfter(turn, responsesErrorBodyOf(turn)),
      failureFrames: (turn) => responsesFailureEventsOf(turn, context).map(encodeResponsesSse),
      usageLimit: (turn, now) => openAiUsageLimit(turn, now),
    };
    return { ok: true, exchange };
  },
  error: (status, message) => ({
    status,
    body: openAiError(message, status >= 500 ? 'server_error' : 'invalid_request_error'),
  }),
};

const gemini: WireAdapter = {
  accept(body, { route, headers, ids }) {
    const parsed = GeminiRequestSchema.safeParse(body);
    if (!parsed.success) return refuse(gemini.error(400, describeGeminiIssue(parsed.error)));
    const request = parsed.data;
    const model = route.model ?? '';
    const context = {
      model,
      inputTokens: estimateTokens({
        systemInstruction: request.systemInstruction,
        contents: request.contents,
        tools: request.tools,
      }),
      ...(request.generationConfig?.maxOutputTokens
        ? { maxOutput: request.generationConfig.maxOutputTokens }
        : {}),
      ids,
    };
    const build = (turn: ReplyTurn) => buildGeminiResponse(turn, context);
    const exchange: Exchange = {
      view: geminiViewOf(request, model, headers),
      stream: route.streamMethod === true && route.sse === true,
      // `:streamGenerateContent` without alt=sse answers the chunks as one JSON array.
      reply: (turn) => (route.streamMethod ? geminiChunksOf(build(turn)) : build(turn)),
      frames: (turn) => geminiChunksOf(build(turn)).map(encodeGeminiSse),
      failure: (turn) => withRetryAfter(turn, geminiErrorBodyOf(turn)),
      failureFrames: (turn) => [encodeGeminiSse(geminiErrorBodyOf(turn))],
      usageLimit: (turn, now) => geminiUsageLimit(turn, model, now),
    };
    return { ok: true, exchange };
  },
  count: (body) => ({ status: 200, body: { totalTokens: estimateTokens(body) } }),
  error: (status, message) => ({ status, body: googleError(status, message) }),
};

export const WIRE_APIS: Readonly<Record<WireApi, WireAdapter>> = {
  anthropic,
  'openai-responses': responses,
  gemini,
};
