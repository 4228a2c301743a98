/**
 * Turns a scripted reply into what the Gemini API would send: one GenerateContentResponse for
 * `:generateContent`, or the chunks of `:streamGenerateContent` (text in small pieces, each function
 * call whole, the last chunk carrying finishReason and usageMetadata). Text blocks become text parts,
 * tool_use blocks functionCall parts ({ name, args }; a freeform input as `{ input: "<text>" }`),
 * thinking blocks `thought: true` text parts.
 * Errors are Google's error JSON. Pure, given an id source.
 */
import type { IdSource } from './ids.ts';
import { objectInput, pieces, usageOf } from './response-builder.ts';
import type { ErrorTurn, ReplyTurn } from './script-schema.ts';

export type GeminiPart =
  | { text: string; thought?: true }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string } };

export type GeminiUsage = {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
};

export type GeminiResponse = {
  candidates: {
    content: { role: 'model'; parts: GeminiPart[] };
    finishReason?: 'STOP' | 'MAX_TOKENS';
    index: 0;
  }[];
  usageMetadata?: GeminiUsage;
  modelVersion: string;
  responseId: string;
};

export type GeminiContext = { model: string; inputTokens: number; maxOutput?: number; ids: IdSource };

export function buildGeminiResponse(turn: ReplyTurn, context: GeminiContext): GeminiResponse {
  const parts = turn.content.map((block): GeminiPart => {
    if ('text' in block) return { text: block.text };
    if ('thinking' in block) return { text: block.thinking, thought: true };
    const { name, input, id } = block.tool_use;
    return { functionCall: { name, args: objectInput(input), ...(id ? { id } : {}) } };
  });
  const usage = usageOf(turn, context.inputTokens, context.maxOutput);
  // Gemini's prompt count includes cached content; the script's input_tokens leaves it out.
  const prompt = usage.input + usage.cacheRead + usage.cacheCreation;
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        finishReason: turn.stopReason === 'max_tokens' ? 'MAX_TOKENS' : 'STOP',
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: prompt,
      candidatesTokenCount: usage.output,
      totalTokenCount: prompt + usage.output,
      ...(usage.cacheRead > 0 ? { cachedContentTokenCount: usage.cacheRead } : {}),
    },
    modelVersion: context.model,
    responseId: context.ids.geminiResponseId(),
  };
}

/** The stream's chunks: every chunk one part; only the last has finishReason and usageMetadata. */
export function geminiChunksOf(response: GeminiResponse): GeminiResponse[] {
  const [candidate] = response.candidates;
  if (!candidate) return [response];
  const parts = candidate.content.parts.flatMap((part): GeminiPart[] =>
    'text' in part ? pieces(part.text).map((text) => ({ ...part, text })) : [part],
  );
  const { usageMetadata, ...rest } = response;
  return parts.map((part, index) => {
    const last = index === parts.length - 1;
    const { finishReason, ...open } = candidate;
    return {
      ...rest,
      candidates: [{ ...(last ? candidate : open), content: { role: 'model', parts: [part] } }],
      ...(last && usageMetadata ? { usageMetadata } : {}),
    };
  });
}

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export type GoogleErrorBody = {
  error: { code: number; message: string; status: string; details?: Record<string, unknown>[] };
};

/** Google's error JSON; `status` defaults from the HTTP code (429 RESOURCE_EXHAUSTED, 500 INTERNAL). */
export function googleError(code: number, message?: string, status?: string): GoogleErrorBody {
  const name = status ?? STATUS_NAMES[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
  return { error: { code, message: message ?? `Scripted ${code} ${name}`, status: name } };
}

/** The script's error as Google's; retryAfter also becomes a RetryInfo detail, which Gemini CLI reads. */
export function geminiErrorBodyOf(turn: ErrorTurn): GoogleErrorBody {
  const { status, type, message, retryAfter } = turn.error;
  const body = googleError(status, message, type);
  if (retryAfter !== undefined) {
    body.error.details = [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` },
    ];
  }
  return body;
}

/** SSE framing of `alt=sse`: data lines only, no event names. */
export function encodeGeminiSse(chunk: GeminiResponse | GoogleErrorBody): string {
  return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
}
