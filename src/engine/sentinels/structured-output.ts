import { z } from 'zod';

/**
 * Structured sentinel output: the model is asked (in the system prompt) for one JSON object matching
 * the sentinel's JSON Schema; its reply is parsed and validated with zod's JSON Schema conversion
 * (`z.fromJSONSchema`: type, properties, required, items, enum, const, bounds, patterns, anyOf, ...).
 * A reply that is not such an object is an `llm-call-failed` error (retriable: asking again may
 * succeed), counted like a failed call.
 */
export type OutputValidator = {
  schema: Record<string, unknown>;
  parse(reply: string): { ok: true; value: Record<string, unknown> } | { ok: false; message: string };
};

export function compileOutputSchema(
  schema: Record<string, unknown>,
): { ok: true; validator: OutputValidator } | { ok: false; message: string } {
  let zodSchema: z.ZodType;
  try {
    zodSchema = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    return {
      ok: false,
      message: `the output schema cannot be used: ${(error as Error).message}. Supported: type, properties, required, items, enum, const, anyOf/oneOf, bounds and local $defs`,
    };
  }
  return {
    ok: true,
    validator: {
      schema,
      parse(reply) {
        const json = extractJson(reply);
        if (json === undefined) {
          return { ok: false, message: `the reply is not a JSON object: ${preview(reply)}` };
        }
        const parsed = zodSchema.safeParse(json);
        if (!parsed.success) {
          return {
            ok: false,
            message: `the reply does not match the output schema: ${z.prettifyError(parsed.error).replace(/\n\s*/g, '; ')}`,
          };
        }
        return { ok: true, value: json };
      },
    },
  };
}

/** Appended to the system prompt of structured sentinels. */
export function structuredInstruction(schema: Record<string, unknown>): string {
  return `Answer with one JSON object and nothing else (no prose, no code fence). It must match this JSON Schema:\n${JSON.stringify(schema)}`;
}

/** The JSON object in a reply: the whole reply, a fenced block, or the outermost braces. */
export function extractJson(reply: string): Record<string, unknown> | undefined {
  const text = reply.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  const candidates = [text, fenced?.[1], sliceBraces(text)];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    try {
      const value: unknown = JSON.parse(candidate);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        return value as Record<string, unknown>;
      }
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

function sliceBraces(text: string): string | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start !== -1 && end > start ? text.slice(start, end + 1) : undefined;
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line || '(empty)';
}
