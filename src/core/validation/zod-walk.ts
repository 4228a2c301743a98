import { z } from 'zod';
import type { PathSegment } from './path.ts';

/**
 * Reading zod issues against the schema and the input they came from: the value an issue is about,
 * the union branch the input was meant for, the keys and descriptions the schema has at a path.
 * Shared by the plan validator (src/plan/zod-issues.ts) and the protocol's command checks
 * (src/host/server/command-problems.ts), which word the same facts for YAML and for JSON writers.
 */

export type Issue = z.core.$ZodIssue;
export type Schema = z.core.$ZodType;

/**
 * The union branch the input was meant for: every object in our unions is strict, so the branch that
 * recognizes most of the input's keys is the intended one; a branch that rejects the input's type
 * outright is never meant. Undefined when every branch rejects the type.
 */
export function pickBranch(branches: readonly Issue[][], value?: unknown): Issue[] | undefined {
  let best: Issue[] | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  // An object or a list was never meant as one of a list of words (`sandbox: on` or `{mode: on}`).
  const composite = typeof value === 'object' && value !== null;
  for (const issues of branches) {
    if (issues.some((i) => i.code === 'invalid_type' && i.path.length === 0)) continue;
    if (composite && issues.some((i) => i.code === 'invalid_value' && i.path.length === 0)) continue;
    const unknownKeys = issues
      .filter((i) => i.code === 'unrecognized_keys' && i.path.length === 0)
      .reduce((n, i) => n + (i.code === 'unrecognized_keys' ? i.keys.length : 0), 0);
    // Unknown keys weigh most; fewer issues break ties.
    const score = unknownKeys * 1000 + issues.length;
    if (score < bestScore) {
      best = issues;
      bestScore = score;
    }
  }
  return best;
}

/** The types every branch of a union refused the input's root value for (what the input should have been). */
export function rootExpected(issues: readonly Issue[]): string[] {
  return issues.flatMap((i) => (i.code === 'invalid_type' && i.path.length === 0 ? [i.expected] : []));
}

export function toSegment(key: PropertyKey): PathSegment {
  return typeof key === 'number' ? key : String(key);
}

export function valueAt(input: unknown, path: readonly PathSegment[]): unknown {
  let value = input;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = Reflect.get(value, segment);
  }
  return value;
}

// --- Walking the schema along an issue's path (for allowed keys and descriptions) ---------------------

/** Peels wrappers (optional, default, ...) and splits unions into the schemas a value may meet. */
function alternatives(schema: Schema): Schema[] {
  const out: Schema[] = [];
  const seen = new Set<Schema>();
  const stack = [schema];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    const inner = unwrapOnce(s);
    if (inner !== undefined) stack.push(inner);
    else if (s instanceof z.ZodUnion) stack.push(...[...s.options].reverse());
    else out.push(s);
  }
  return out;
}

function unwrapOnce(s: Schema): Schema | undefined {
  if (
    s instanceof z.ZodOptional ||
    s instanceof z.ZodNullable ||
    s instanceof z.ZodDefault ||
    s instanceof z.ZodPrefault ||
    s instanceof z.ZodReadonly ||
    s instanceof z.ZodCatch ||
    s instanceof z.ZodNonOptional
  ) {
    return s.def.innerType;
  }
  if (s instanceof z.ZodPipe) return s.def.in;
  if (s instanceof z.ZodLazy) return s.def.getter();
  return undefined;
}

function schemasAt(root: Schema, path: readonly PathSegment[]): Schema[] {
  let current: Schema[] = [root];
  for (const segment of path) {
    const next: Schema[] = [];
    for (const s of current.flatMap(alternatives)) {
      if (s instanceof z.ZodObject && typeof segment === 'string' && segment in s.shape)
        next.push(s.shape[segment]);
      else if (s instanceof z.ZodArray && typeof segment === 'number') next.push(s.element);
      else if (s instanceof z.ZodRecord && typeof segment === 'string') next.push(s.valueType);
    }
    current = next;
  }
  return current;
}

/**
 * The keys an object at `path` may have. With the input's `value` there, a union's objects are
 * narrowed to those whose literal fields it matches (a sentinel action with `do: halt` gets halt's
 * fields, not every kind's); all of them when none matches.
 */
export function keysAt(root: Schema, path: readonly PathSegment[], value?: unknown): string[] {
  const objects = schemasAt(root, path)
    .flatMap(alternatives)
    .filter((s): s is z.ZodObject => s instanceof z.ZodObject);
  const fitting = objects.filter((s) => literalsFit(s, value));
  const keys = new Set<string>();
  for (const s of fitting.length > 0 ? fitting : objects)
    for (const key of Object.keys(s.shape)) keys.add(key);
  keys.delete('$schema');
  return [...keys];
}

/** Whether every literal field of `object` (a union's discriminator) that `value` has holds one of its values. */
function literalsFit(object: z.ZodObject, value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.entries(object.shape).every(([key, field]) => {
    if (!(field instanceof z.ZodLiteral) || !(key in value)) return true;
    return field.def.values.includes(Reflect.get(value, key));
  });
}

export function describeAt(root: Schema, path: readonly PathSegment[]): string | undefined {
  for (let s of schemasAt(root, path)) {
    for (;;) {
      const description = z.globalRegistry.get(s)?.description;
      if (description !== undefined) return description;
      const inner = unwrapOnce(s);
      if (inner === undefined) break;
      s = inner;
    }
  }
  return undefined;
}

/**
 * The numbers a field takes: its bounds (an int field's exclusive bound is turned into the inclusive
 * one next to it) and its default.
 */
export type NumberRange = {
  int: boolean;
  min?: number;
  max?: number;
  minExclusive?: boolean;
  maxExclusive?: boolean;
  default?: number;
};

/** The range of the number field at `path`, or undefined when no number schema is there. */
export function numberRangeAt(root: Schema, path: readonly PathSegment[]): NumberRange | undefined {
  for (let s of schemasAt(root, path)) {
    let fallback: number | undefined;
    for (;;) {
      if (s instanceof z.ZodDefault && typeof s.def.defaultValue === 'number') fallback = s.def.defaultValue;
      const inner = unwrapOnce(s);
      if (inner === undefined) break;
      s = inner;
    }
    if (!(s instanceof z.ZodNumber)) continue;
    const range: NumberRange = { int: s.isInt, ...(fallback === undefined ? {} : { default: fallback }) };
    for (const check of s.def.checks ?? []) {
      const def = check._zod.def as { check: string; value?: unknown; inclusive?: boolean };
      if (typeof def.value !== 'number') continue;
      const exclusive = def.inclusive === false;
      if (def.check === 'greater_than') {
        const min = exclusive && range.int ? Math.floor(def.value) + 1 : def.value;
        if (range.min === undefined || min >= range.min) {
          range.min = min;
          range.minExclusive = exclusive && !range.int;
        }
      }
      if (def.check === 'less_than') {
        const max = exclusive && range.int ? Math.ceil(def.value) - 1 : def.value;
        if (range.max === undefined || max <= range.max) {
          range.max = max;
          range.maxExclusive = exclusive && !range.int;
        }
      }
    }
    return range;
  }
  return undefined;
}

/** The range in words: "a whole number from 1 to 100", "a number greater than 0". */
export function rangeText(range: NumberRange): string {
  const noun = range.int ? 'a whole number' : 'a number';
  const { min, max } = range;
  const low =
    min === undefined ? undefined : range.minExclusive ? `greater than ${min}` : `of at least ${min}`;
  const high = max === undefined ? undefined : range.maxExclusive ? `less than ${max}` : `of at most ${max}`;
  if (min !== undefined && max !== undefined && !range.minExclusive && !range.maxExclusive)
    return `${noun} from ${min} to ${max}`;
  if (low !== undefined && high !== undefined) return `${noun} ${low} and ${high.replace(/^of /, '')}`;
  return [noun, low ?? high].filter(Boolean).join(' ');
}
