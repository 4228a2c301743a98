import {
  ErrorCode,
  EXTENSION_MARK,
  EXTENSION_VALUES_MARK,
  SPEC_ERROR_CODES,
} from '../../core/protocol/index.ts';
import { type JsonSchema, protocolSchemas } from './protocol-schemas.ts';

/**
 * Everything Ribosome adds to the spec's protocol, read from the marks on the zod schemas (through
 * the generated JSON Schemas, so exactly what the published contract marks). The list in
 * docs/protocol.md#protocol-extensions must name each one; a test holds it to that.
 */
export type Extension =
  | { kind: 'message'; type: string }
  | { kind: 'field'; type: string; path: string; name: string }
  | { kind: 'values'; type: string; path: string; values: string[] }
  | { kind: 'code'; code: string };

export function protocolExtensions(): Extension[] {
  const found: Extension[] = [];
  for (const { type, schema } of protocolSchemas()) {
    visit(schema, [], (node, path) => {
      const at = path.join('.');
      if (node[EXTENSION_MARK] === true && path.length > 0) {
        found.push(
          at === 'data' ? { kind: 'message', type } : { kind: 'field', type, path: at, name: path.at(-1)! },
        );
      }
      const values = node[EXTENSION_VALUES_MARK];
      if (Array.isArray(values)) found.push({ kind: 'values', type, path: at, values: values.map(String) });
    });
  }
  for (const code of ErrorCode.options) if (!SPEC_ERROR_CODES.has(code)) found.push({ kind: 'code', code });
  return found;
}

/** Visits every object property's schema (through arrays, unions and records), with its path. */
function visit(node: JsonSchema, path: string[], see: (node: JsonSchema, path: string[]) => void): void {
  see(node, path);
  const children = (value: unknown): JsonSchema[] =>
    Array.isArray(value)
      ? (value as JsonSchema[])
      : typeof value === 'object' && value !== null
        ? [value as JsonSchema]
        : [];
  for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
    visit(child, [...path, key], see);
  }
  for (const keyword of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties'] as const) {
    for (const child of children(node[keyword])) visit(child, path, see);
  }
}
