/**
 * A Gemini API request (`POST /v1beta/models/<model>:generateContent` or `:streamGenerateContent`, as
 * Gemini CLI sends it) mapped to the neutral RequestView: the model comes from the path, system from
 * `systemInstruction`; `user` contents (text and functionResponse parts) are the user side, `model`
 * contents the model's (a functionCall part is a tool call).
 */
import { z } from 'zod';
import {
  conversationView,
  namedTools,
  type RequestHeaders,
  type RequestView,
  stringsIn,
  type ViewEntry,
} from './request-view.ts';

const PartSchema = z.looseObject({});
type Part = z.infer<typeof PartSchema>;
const ContentSchema = z.looseObject({ role: z.string().optional(), parts: z.array(PartSchema) });

export const GeminiRequestSchema = z.looseObject({
  contents: z.array(ContentSchema).min(1, 'contents is not specified'),
  systemInstruction: z.union([z.string(), z.looseObject({ parts: z.array(PartSchema) })]).optional(),
  tools: z.array(z.unknown()).optional(),
  generationConfig: z.looseObject({ maxOutputTokens: z.number().int().positive().optional() }).optional(),
});
export type GeminiRequest = z.infer<typeof GeminiRequestSchema>;

function partText(part: Part): string {
  if (part.thought === true) return '';
  if (typeof part.text === 'string') return part.text;
  if (typeof part.functionResponse === 'object' && part.functionResponse !== null) {
    return stringsIn('response' in part.functionResponse ? part.functionResponse.response : '').join('\n');
  }
  return '';
}

const textOf = (parts: Part[]): string => parts.map(partText).filter(Boolean).join('\n');

export function geminiViewOf(request: GeminiRequest, model: string, headers: RequestHeaders): RequestView {
  const instruction = request.systemInstruction;
  const entries: ViewEntry[] = [
    {
      role: 'system',
      text: typeof instruction === 'string' ? instruction : textOf(instruction?.parts ?? []),
    },
  ];
  for (const content of request.contents) {
    if (content.role === 'model') {
      entries.push({
        role: 'assistant',
        text: '',
        callsTool: content.parts.some((part) => 'functionCall' in part),
      });
    } else {
      entries.push({ role: 'user', text: textOf(content.parts) });
    }
  }
  return {
    api: 'gemini',
    model,
    ...conversationView(entries),
    hasTools: (request.tools?.length ?? 0) > 0,
    // Gemini groups its functions: tools[].functionDeclarations[].
    tools: (request.tools ?? []).flatMap((tool) =>
      typeof tool === 'object' && tool !== null && 'functionDeclarations' in tool
        ? namedTools(Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : [])
        : [],
    ),
    deferredNamespaces: [],
    headers,
  };
}

/** The API's wording of a request error (`GenerateContentRequest.contents: ...`). */
export function describeGeminiIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid request.';
  const path = ['GenerateContentRequest', ...issue.path.map(String)].join('.');
  const required = issue.code === 'invalid_type' && issue.input === undefined;
  return `* ${path}: ${required ? `${String(issue.path.at(-1) ?? 'field')} is not specified` : issue.message}`;
}
