import { z } from 'zod';

/**
 * One line of an agent's JSON output read with `schema`: its value, or why not ('not JSON', or what the
 * schema refused). A line of JSON the schema refused keeps that JSON (`json`), for a translator to tell
 * an event it does not know (no error: newer CLIs add some) from a broken one. Never throws.
 */
export function parseJsonLine<T>(
  text: string,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; error: string; json?: unknown } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  const parsed = schema.safeParse(json);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, error: z.prettifyError(parsed.error), json };
}
