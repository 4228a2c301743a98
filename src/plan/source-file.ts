import { readFile } from 'node:fs/promises';
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { formatPath, type PathSegment, type PlanProblem, type ProblemDraft } from './problems.ts';

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
  ): PlanProblem => ({
    code: 'YAML_SYNTAX',
    severity,
    file,
    path: '',
    ...position(error.pos[0]),
    // prettyErrors appends the position and a code excerpt; the position is in line/column already.
    message: error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
    hint: yamlHint(error.code),
  });
  const errors = doc.errors.map((e) => yamlProblem(e, 'error'));
  const warnings = doc.warnings.map((w) => yamlProblem(w, 'warning'));
  if (errors.length > 0) return { ok: false, problems: [...errors, ...warnings] };

  const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
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
