import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { jsonSyntaxError } from './json-syntax.ts';
import { formatPath, type PathSegment, type PlanProblem, type ProblemDraft } from './problems.ts';
import { indentedKey } from './yaml-indented-key.ts';
import { unclosedOpening } from './yaml-openings.ts';

/**
 * A parsed YAML (or JSON, a subset of YAML) file that can place a problem at the line and column of
 * the value a path points to.
 */
export type SourceFile = {
  /** Absolute path. */
  file: string;
  /** The parsed value (null for an empty document). */
  data: unknown;
  locate(draft: ProblemDraft): PlanProblem;
};

export type ReadResult =
  | { ok: true; source: SourceFile; warnings: PlanProblem[] }
  | { ok: false; problems: PlanProblem[] };

/** Reads a file's text; a missing or unreadable file becomes a problem about the file as a whole. */
export async function readText(
  file: string,
): Promise<
  { ok: true; text: string } | { ok: false; code: 'FILE_NOT_FOUND' | 'FILE_UNREADABLE'; reason: string }
> {
  try {
    return { ok: true, text: await readFile(file, 'utf8') };
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return { ok: false, code: 'FILE_NOT_FOUND', reason: 'not found' };
    if (code === 'EISDIR') return { ok: false, code: 'FILE_UNREADABLE', reason: 'is a directory' };
    return { ok: false, code: 'FILE_UNREADABLE', reason: code ?? String(error) };
  }
}

export async function readSourceFile(file: string, what: string): Promise<ReadResult> {
  const read = await readText(file);
  if (!read.ok) {
    const hint = read.code === 'FILE_NOT_FOUND' ? 'Check the path.' : 'Check that it is a readable file.';
    return {
      ok: false,
      problems: [wholeFile(file, read.code, `Cannot read the ${what}: ${read.reason}.`, hint)],
    };
  }
  return parseSource(file, read.text, what);
}

export type ParseOptions = {
  /** Places text that starts below line 1 of its file (front matter). */
  lineOffset?: number;
  /** Read every scalar as a string (front matter: `version: 1.0` stays "1.0"). */
  stringsOnly?: boolean;
};

export function parseSource(
  file: string,
  text: string,
  what: string,
  options: ParseOptions = {},
): ReadResult {
  const lineOffset = options.lineOffset ?? 0;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: true,
    uniqueKeys: true,
    // `<<: *shared` merge keys, as in docker-compose files, for codons that share settings.
    merge: true,
    ...(options.stringsOnly ? { schema: 'failsafe' } : {}),
  });
  const position = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line: line + lineOffset, column: col };
  };
  const yamlProblem = (
    error: (typeof doc.errors)[number],
    severity: PlanProblem['severity'],
  ): PlanProblem => {
    // prettyErrors appends the position and a code excerpt; the position is in line/column already.
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    const base = { code: 'YAML_SYNTAX' as const, severity, file, path: '' };
    const opening = unclosed(text, error.pos[0], message);
    if (opening !== undefined) return { ...base, ...position(opening.offset), ...opening.words };
    const key = indentedKey(text, doc.errors, error);
    if (key !== undefined) {
      return {
        ...base,
        ...position(key.offset),
        message: `This key is indented deeper than the keys of its mapping, so YAML reads it as part of the value on line ${position(key.valueOffset).line}.`,
        hint: 'Indent it like the other keys of its mapping (a text value going on over lines: quote it, or use | or >).',
      };
    }
    return { ...base, ...position(error.pos[0]), message, hint: yamlHint(error.code) };
  };
  // A .json file is read as JSON (a trailing comma is an error, as in every other JSON reader); the
  // YAML document of the same text only places problems (JSON is YAML), and refuses duplicate keys.
  const json = isJsonFile(file) ? parseJson(text) : undefined;
  if (json !== undefined && !json.ok) {
    const problem: PlanProblem = {
      code: 'JSON_SYNTAX',
      severity: 'error',
      file,
      path: '',
      ...(json.offset === undefined ? {} : position(json.offset)),
      message: json.message,
      hint: json.hint,
    };
    return { ok: false, problems: [problem] };
  }
  // After the first syntax error the parser's further ones are mostly its consequences: the first
  // one is reported (repeated keys, independent of it, all are).
  const duplicates = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY');
  const first = doc.errors.find((e) => e.code !== 'DUPLICATE_KEY');
  const yamlErrors = json !== undefined || first === undefined ? duplicates : [first, ...duplicates];
  const errors = yamlErrors.map((e) => ({
    ...yamlProblem(e, 'error'),
    ...(json === undefined ? {} : { code: 'JSON_SYNTAX' as const }),
  }));
  const warnings = json === undefined ? doc.warnings.map((w) => yamlProblem(w, 'warning')) : [];
  if (errors.length > 0) return { ok: false, problems: [...errors, ...warnings] };

  const data = json === undefined ? (doc.toJS({ maxAliasCount: 100 }) as unknown) : json.value;
  if (data === null || data === undefined) {
    return {
      ok: false,
      problems: [
        wholeFile(file, 'EMPTY_FILE', `The ${what} is empty.`, 'Write the fields of the file; see schema/.'),
      ],
    };
  }
  const locate = (draft: ProblemDraft): PlanProblem => {
    const offset = draft.line === undefined ? offsetOf(doc, draft.path, draft.pointAt ?? 'value') : undefined;
    const place = offset === undefined ? {} : position(offset);
    return {
      code: draft.code,
      severity: draft.severity ?? 'error',
      file,
      path: formatPath(draft.path),
      ...(draft.line === undefined ? {} : { line: draft.line, column: draft.column ?? 1 }),
      ...place,
      message: draft.message,
      hint: draft.hint,
    };
  };
  return { ok: true, source: { file, data, locate }, warnings };
}

/** An unclosed quote or flow bracket: placed where it opened, in words that say so. */
function unclosed(
  text: string,
  offset: number,
  message: string,
): { offset: number; words: { message: string; hint: string } } | undefined {
  if (/closing "?quote/.test(message)) {
    const quote = unclosedOpening(text, offset, 'quote');
    if (quote === undefined) return undefined;
    const kind = quote.char === '"' ? 'double' : 'single';
    return {
      offset: quote.offset,
      words: {
        message: `This ${kind} quote is never closed.`,
        hint:
          kind === 'double'
            ? 'Close it with " on the same value; write \\" for a quote inside.'
            : "Close it with ' on the same value; write '' for a quote inside.",
      },
    };
  }
  if (/^Flow (sequence|map) .* end with a [\]}]/.test(message)) {
    const bracket = unclosedOpening(text, offset, 'bracket');
    if (bracket === undefined) return undefined;
    const close = bracket.char === '[' ? ']' : '}';
    return {
      offset: bracket.offset,
      words: {
        message: `This "${bracket.char}" is never closed.`,
        hint: `Close it with "${close}", or indent its continuation lines further than the key it belongs to.`,
      },
    };
  }
  return undefined;
}

function isJsonFile(file: string): boolean {
  return extname(file).toLowerCase() === '.json';
}

type JsonParse = { ok: true; value: unknown } | { ok: false; offset?: number; message: string; hint: string };

/** JSON.parse, with the place and words of the first syntax error; empty text reads as null. */
function parseJson(text: string): JsonParse {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch (error) {
    const found = jsonSyntaxError(text);
    if (found !== undefined) return { ok: false, ...found };
    return {
      ok: false,
      message: `Not valid JSON: ${(error as Error).message}.`,
      hint: 'Fix the JSON syntax.',
    };
  }
}

export function wholeFile(
  file: string,
  code: PlanProblem['code'],
  message: string,
  hint: string,
): PlanProblem {
  return { code, severity: 'error', file, path: '', message, hint };
}

function yamlHint(code: string): string {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'Remove or rename one of the repeated keys.';
    case 'BAD_INDENT':
    case 'MISSING_CHAR':
      return 'Check the indentation and the closing brackets or quotes around this line.';
    case 'TAB_AS_INDENT':
      return 'Indent with spaces, not tabs.';
    default:
      return 'Fix the YAML syntax at this position; quote values that contain ": " or start with a special character.';
  }
}

/**
 * Start offset of the node a path points to, or of the deepest node on the path that exists (the
 * enclosing mapping of a missing field). For `pointAt: 'key'` the key itself is used.
 */
function offsetOf(doc: Document, path: readonly PathSegment[], pointAt: 'key' | 'value'): number | undefined {
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (const [i, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(doc);
    let key: unknown;
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment),
      );
      if (pair === undefined) return offset;
      key = pair.key;
      next = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      next = node.items[segment];
      if (next === undefined) return offset;
    } else {
      return offset;
    }
    const last = i === path.length - 1;
    offset =
      (last && pointAt === 'key' ? rangeStart(key) : undefined) ??
      rangeStart(next) ??
      rangeStart(key) ??
      offset;
    node = next;
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range === undefined || range === null ? undefined : range[0];
}
