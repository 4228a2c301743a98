/**
 * Whether a glob can match outside its base directory. Node's glob expands braces before matching
 * (`{..,x}/*.txt` is `../*.txt` and `x/*.txt`), reads `\` as a separator, and takes some segments that
 * are not literally `..` for it (`[.][.]`, `.[.]`): each alternative is checked, and each of its
 * segments is asked whether it matches `..` with Node's own matcher. Pure.
 */
import { matchesGlob } from 'node:path';
import { z } from 'zod';
import { normalizeInside } from './primitives.ts';

/** Beyond this many brace alternatives a glob is refused rather than checked. */
export const MAX_BRACE_ALTERNATIVES = 1000;

/** The index of the `}` closing the `{` at `open`, or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/** `body` split at its top-level commas. */
function alternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '{') depth++;
    else if (body[i] === '}') depth--;
    else if (body[i] === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

/**
 * Every string the braces of `pattern` expand to (`a{b,c{d,e}}` -> ab, acd, ace), at least every
 * one minimatch would produce; undefined past `limit`. A group without a top-level comma stays
 * literal (`{a}`, and sequences such as `{1..3}`, which only make digits and letters).
 */
export function expandBraces(pattern: string, limit = MAX_BRACE_ALTERNATIVES): string[] | undefined {
  // The first `{` that closes; an unclosed one is literal.
  let open = pattern.indexOf('{');
  let close = open === -1 ? -1 : closing(pattern, open);
  while (open !== -1 && close === -1) {
    open = pattern.indexOf('{', open + 1);
    close = open === -1 ? -1 : closing(pattern, open);
  }
  if (open === -1) return [pattern];
  const pre = pattern.slice(0, open);
  const body = pattern.slice(open + 1, close);
  const post = expandBraces(pattern.slice(close + 1), limit);
  const parts = alternatives(body);
  const middles: string[] = [];
  for (const part of parts) {
    const expanded = expandBraces(part, limit);
    if (expanded === undefined) return undefined;
    middles.push(...(parts.length === 1 ? expanded.map((e) => `{${e}}`) : expanded));
  }
  if (post === undefined || middles.length * post.length > limit) return undefined;
  return middles.flatMap((middle) => post.map((rest) => pre + middle + rest));
}

function matchesDotDot(segment: string): boolean {
  if (segment === '..') return true;
  try {
    return segment !== '' && matchesGlob('..', segment);
  } catch {
    return false;
  }
}

export type GlobEscape =
  | { kind: 'too-many' }
  /** `alternative`: the expansion that leaves; `segment`: its part that matches `..`, when not literal. */
  | { kind: 'escapes'; alternative: string; segment?: string };

/** How `glob` can match outside its base directory, or undefined when it cannot. */
export function globEscape(glob: string): GlobEscape | undefined {
  const expanded = expandBraces(glob.replaceAll('\\', '/'));
  if (expanded === undefined) return { kind: 'too-many' };
  for (const alternative of expanded) {
    if (normalizeInside(alternative) === undefined) return { kind: 'escapes', alternative };
    const segment = alternative.split('/').find(matchesDotDot);
    if (segment !== undefined) {
      return { kind: 'escapes', alternative, ...(segment === '..' ? {} : { segment }) };
    }
  }
  return undefined;
}

/** What the loader says of a glob that can match outside `base`. */
function describeEscape(glob: string, found: GlobEscape, base: string): { message: string; hint: string } {
  if (found.kind === 'too-many') {
    return {
      message: `Glob has more than ${MAX_BRACE_ALTERNATIVES} brace alternatives; they cannot all be checked.`,
      hint: 'Split it into several globs.',
    };
  }
  const expands =
    found.alternative === glob.replaceAll('\\', '/') ? '' : `, but it expands to "${found.alternative}"`;
  const segment = found.segment === undefined ? '' : `, whose "${found.segment}" matches ".."`;
  return {
    message: `Glob must match only inside ${base}${expands}${segment}.`,
    hint: 'Write a relative glob such as "build/**" or "*.log": no leading "/", and no ".." (nor braces or [.] that make one).',
  };
}

/** A relative glob that must not match outside its base directory, whatever its braces expand to. */
export function insideGlob(base: string) {
  return z
    .string()
    .min(1)
    .superRefine((glob, ctx) => {
      const found = globEscape(glob);
      if (found === undefined) return;
      const { message, hint } = describeEscape(glob, found, base);
      ctx.addIssue({ code: 'custom', message, params: { code: 'PATH_ESCAPES', hint } });
    });
}
