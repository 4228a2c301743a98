import { z } from 'zod';

/** Reading the valid parts of a value that failed its schema (salvage.ts, salvage-sentinel.ts). */

/** The object without its invalid fields, if that is still valid. */
export function salvageObject<S extends z.ZodObject>(
  schema: S,
  data: unknown,
): { value: z.infer<S>; dropped: string[] } | undefined {
  const whole = schema.safeParse(data);
  if (whole.success) return { value: whole.data, dropped: [] };
  if (!isRecord(data)) return undefined;
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    const field = schema.shape[key];
    if (field !== undefined && z.safeParse(field, value).success) kept[key] = value;
    else dropped.push(key);
  }
  const partial = schema.safeParse(kept);
  return partial.success ? { value: partial.data, dropped } : undefined;
}

export function valid<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> | undefined {
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
