import { z } from 'zod';

/**
 * Marks what Ribosome adds to the spec's protocol, on the zod schemas themselves: the one place the
 * published contract (schema/asyncapi.yaml, the JSON Schemas) and the docs check (docs/protocol.md#protocol-extensions) read it from.
 * The mark is JSON Schema metadata, so it reaches every generated schema unchanged.
 */
export const EXTENSION_MARK = 'x-ribosome-extension';
/** Values of ours in a field the spec defines (the field itself is the spec's). */
export const EXTENSION_VALUES_MARK = 'x-ribosome-extension-values';

/** A field, event payload or value set that is ours; `description` says what it is for. */
export function ours<T extends z.ZodType>(schema: T, description?: string): T {
  return schema.meta({ [EXTENSION_MARK]: true, ...(description === undefined ? {} : { description }) });
}

/** A field of the spec's that may also take `values` of ours. */
export function oursValues<T extends z.ZodType>(schema: T, values: readonly string[]): T {
  return schema.meta({ [EXTENSION_VALUES_MARK]: [...values] });
}

/** An enum of the spec's `values` with `extra` values of ours after them. */
export function extendedEnum<
  const S extends readonly [string, ...string[]],
  const E extends readonly string[],
>(values: S, extra: E) {
  type Value = S[number] | E[number];
  return oursValues(z.enum([...values, ...extra] as [Value, ...Value[]]), extra);
}
