import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { anchor, code, table } from './markdown.ts';

/**
 * Reference sections from JSON Schemas (the ones `npm run schema` ships, generated from the zod
 * schemas): one table a section, a row per field. Nested objects, array items (`[]`) and map values
 * (`<name>`) are rows with dotted names under their field; a union's objects are merged into one set
 * of rows, each field saying with which discriminator value it goes. A `$ref` is a link to its
 * definition's own section.
 */

export type Schema = z.core.JSONSchema.BaseSchema;

/** One field: its dotted name and the four columns. */
export interface Row {
  name: string;
  type: string;
  default: string;
  description: string;
}

/** A draft-07 document's definitions, by the name its `$ref`s use. */
export function definitionsOf(root: Schema): Record<string, Schema> {
  const definitions = root.definitions;
  return typeof definitions === 'object' && definitions !== null
    ? (definitions as Record<string, Schema>)
    : {};
}

/** Renders rows and sections against a set of definitions (those of every document on the page). */
export class SchemaRenderer {
  readonly #definitions: Record<string, Schema>;

  constructor(definitions: Record<string, Schema>) {
    this.#definitions = definitions;
  }

  /** A section: heading, description, the type unless it is an object (or objects), and the fields' table. */
  section(heading: string, schema: Schema): string {
    const s = unwrap(schema);
    const objects = objectsOf(s);
    const like = objects.length === 1 ? this.#like(objects[0]!) : undefined;
    const variants = s.anyOf ?? s.oneOf;
    const onlyObjects = isObject(s) || (variants !== undefined && objects.length === variants.length);
    const rows = this.rows(s);
    return [
      `## ${heading}`,
      s.description ?? '',
      like !== undefined
        ? `The fields of ${this.#link(like)}${rows.length > 0 ? ', except:' : '.'}`
        : onlyObjects
          ? ''
          : `Type: ${this.type(s)}.`,
      rows.length === 0 ? '' : table(['field', 'type', 'default', 'description'], rows.map(columns)),
    ]
      .filter((block) => block !== '')
      .join('\n\n');
  }

  /**
   * The rows of the fields under `path` (dotted; '' at the top); of an object like a definition,
   * only the fields that differ from it.
   */
  rows(schema: Schema, path = ''): Row[] {
    const s = unwrap(schema);
    if (s.$ref !== undefined) return [];
    const objects = objectsOf(s);
    if (objects.length === 0) {
      const element = elementOf(s);
      return element ? this.#elementRows(element.schema, `${path}${element.suffix}`) : [];
    }
    const like = objects.length === 1 ? this.#like(objects[0]!) : undefined;
    const baseline = like === undefined ? undefined : this.#definitions[like];
    const rows: Row[] = [];
    for (const field of mergeObjects(objects)) {
      const given = objects[0]?.properties?.[field.key];
      if (baseline && isDeepStrictEqual(baseline.properties?.[field.key], given)) continue;
      const name = path === '' ? field.key : `${path}.${field.key}`;
      rows.push({
        name,
        type: this.type(field.schema) + (field.required ? ', required' : ''),
        default: defaultOf(field.schema),
        description: field.description,
      });
      rows.push(...this.rows(field.schema, name));
    }
    return rows;
  }

  /**
   * An array's item or a map's value: a row of its own when it is described and more than a scalar
   * (the array's row already says `array of string`), then its fields.
   */
  #elementRows(schema: Schema, name: string): Row[] {
    const s = unwrap(schema);
    const compound = s.anyOf !== undefined || s.oneOf !== undefined || s.properties !== undefined;
    const own: Row[] =
      s.description === undefined || !compound
        ? []
        : [{ name, type: this.type(s), default: defaultOf(s), description: s.description }];
    return [...own, ...this.rows(s, name)];
  }

  /** The type as a reader wants it: scalar names, literal values, links to definitions. */
  type(schema: Schema): string {
    return alternatives(this.#typeParts(schema));
  }

  /** The alternatives a type allows, nested unions flattened. */
  #typeParts(schema: Schema): string[] {
    const s = unwrap(schema);
    if (s.$ref !== undefined) return [this.#link(refName(s.$ref))];
    const like = this.#like(s);
    if (like !== undefined) return [this.#link(like)];
    if (s.const !== undefined) return [literal(s.const)];
    if (s.enum !== undefined) return s.enum.map(literal);
    const variants = s.anyOf ?? s.oneOf;
    if (variants !== undefined) return variants.flatMap((v) => this.#typeParts(v));
    if (Array.isArray(s.type)) return s.type;
    const element = elementOf(s);
    if (element !== undefined) {
      const inner = this.type(element.schema);
      const wrapped = inner.includes(' or ') ? `(${inner})` : inner;
      return [element.suffix === '[]' ? `array of ${wrapped}` : `map of ${wrapped}`];
    }
    return [s.type ?? 'any'];
  }

  #link(name: string): string {
    return `[${name}](#${anchor(name)})`;
  }

  /**
   * The definition an inline object copies (the same field names, most fields the same), so it is
   * shown as that definition and only the fields that differ get rows. `$schema` is not counted.
   */
  #like(schema: Schema): string | undefined {
    const fields = fieldNames(schema);
    if (fields.length === 0) return undefined;
    for (const [name, definition] of Object.entries(this.#definitions)) {
      if (definition === schema || !isDeepStrictEqual(fieldNames(definition), fields)) continue;
      const same = fields.filter((f) =>
        isDeepStrictEqual(definition.properties?.[f], schema.properties?.[f]),
      );
      if (same.length * 2 > fields.length) return name;
    }
    return undefined;
  }
}

/** The names of the definitions a page's sections should cover: every one reached from `roots`. */
export function reachedDefinitions(roots: readonly Schema[], definitions: Record<string, Schema>): string[] {
  const reached: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string') {
          const name = refName(inner);
          if (reached.includes(name)) continue;
          reached.push(name);
          visit(definitions[name]);
        } else if (key !== 'definitions') visit(inner);
      }
    }
  };
  roots.forEach(visit);
  return reached;
}

function columns(row: Row): string[] {
  return [code(row.name), row.type, row.default, row.description];
}

function refName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** `allOf: [one]` (how zod writes a described `$ref`) as that one, with the outer description. */
function unwrap(schema: Schema): Schema {
  const { allOf, ...rest } = schema;
  if (allOf?.length !== 1 || rest.type !== undefined) return schema;
  return { ...allOf[0], ...rest };
}

function isObject(schema: Schema): boolean {
  return schema.type === 'object' && schema.properties !== undefined;
}

function fieldNames(schema: Schema): string[] {
  return Object.keys(schema.properties ?? {})
    .filter((f) => f !== '$schema')
    .sort();
}

/** The object schemas a field may hold: itself, or the objects among its union's variants. */
function objectsOf(schema: Schema): Schema[] {
  if (isObject(schema)) return [schema];
  const variants = schema.anyOf ?? schema.oneOf ?? [];
  return variants.map(unwrap).filter(isObject);
}

/** An array's items (`[]`) or a map's values (`.<name>`), with what their rows' names add. */
function elementOf(schema: Schema): { schema: Schema; suffix: string } | undefined {
  if (schema.type === 'array' && typeof schema.items === 'object' && !Array.isArray(schema.items))
    return { schema: schema.items, suffix: '[]' };
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object')
    return { schema: schema.additionalProperties, suffix: '.<name>' };
  return undefined;
}

interface Field {
  key: string;
  schema: Schema;
  required: boolean;
  /** The field's description; in a union, each part says with which variants it goes. */
  description: string;
}

/**
 * The fields of one object, or of a union's objects merged into one list: a field several variants
 * give in different ways becomes the union of them, and a description that holds for some variants
 * only says which ones ("With `op` `regex`: ...").
 */
function mergeObjects(objects: readonly Schema[]): Field[] {
  const variants = new Variants(objects);
  const keys = [...new Set(objects.flatMap((o) => Object.keys(o.properties ?? {})))];
  return keys.map((key): Field => {
    const having = objects.filter((o) => o.properties?.[key] !== undefined);
    const schemas = having.map((o) => o.properties?.[key] as Schema);
    const required = having.every((o) => o.required?.includes(key));
    const union = uniqueSchemas(schemas.map(({ description: _d, ...rest }) => rest));
    const schema = union.length === 1 ? union[0]! : { anyOf: union };
    if (key === variants.discriminator) {
      const described = objects.filter((o) => o.description !== undefined);
      const description = described.map((o) => `${variants.label(o)}: ${o.description}`).join(' ');
      return { key, schema, required, description };
    }
    const groups = new Map<string, Schema[]>();
    having.forEach((o, i) => {
      const text = schemas[i]?.description ?? '';
      groups.set(text, [...(groups.get(text) ?? []), o]);
    });
    const parts = [...groups].map(([text, group]) => {
      const forAll = group.length === objects.length || variants.ownField(group) === key;
      return forAll ? text : `${variants.withWhich(group)} ${text}`.trim();
    });
    return { key, schema, required, description: parts.filter(Boolean).join(' ') };
  });
}

/** The variants of a union of objects, and how a description names some of them. */
class Variants {
  readonly #objects: readonly Schema[];
  /** The field every variant gives a constant (`type`, `op`, `do`), if there is one. */
  readonly discriminator: string | undefined;

  constructor(objects: readonly Schema[]) {
    this.#objects = objects;
    this.discriminator =
      objects.length < 2
        ? undefined
        : Object.keys(objects[0]?.properties ?? {}).find((key) =>
            objects.every((o) => (o.properties?.[key] as Schema | undefined)?.const !== undefined),
          );
  }

  /** The required field only this variant has (`copy`, `run`): its name without a discriminator. */
  #own(o: Schema): string | undefined {
    return o.required?.find((key) => this.#objects.every((other) => other === o || !other.properties?.[key]));
  }

  /** A group of one variant known by its own field: that field. */
  ownField(group: readonly Schema[]): string | undefined {
    return group.length === 1 && this.discriminator === undefined ? this.#own(group[0]!) : undefined;
  }

  label(o: Schema): string {
    const value = this.discriminator === undefined ? this.#own(o) : o.properties?.[this.discriminator];
    return typeof value === 'string' ? code(value) : code(String((value as Schema | undefined)?.const));
  }

  /** "With `op` `in`, `regex`:", or with no way to name the variants, nothing. */
  withWhich(group: readonly Schema[]): string {
    if (this.discriminator !== undefined)
      return `With ${code(this.discriminator)} ${group.map((o) => this.label(o)).join(', ')}:`;
    if (group.every((o) => this.#own(o) !== undefined))
      return `With ${group.map((o) => this.label(o)).join(', ')}:`;
    return '';
  }
}

function uniqueSchemas(schemas: readonly Schema[]): Schema[] {
  return schemas.filter((s, i) => schemas.findIndex((t) => isDeepStrictEqual(s, t)) === i);
}

function defaultOf(schema: Schema): string {
  return schema.default === undefined ? '' : literal(schema.default);
}

/** A value as written in a YAML file: a string bare (unless empty), anything else as JSON. */
function literal(value: unknown): string {
  return code(typeof value === 'string' && value !== '' ? value : JSON.stringify(value));
}

/** `a`, `a or b`, `a, b or c`; repeats dropped. */
function alternatives(values: readonly string[]): string {
  const unique = [...new Set(values)];
  return unique.length <= 1
    ? (unique[0] ?? '')
    : `${unique.slice(0, -1).join(', ')} or ${unique[unique.length - 1]}`;
}
