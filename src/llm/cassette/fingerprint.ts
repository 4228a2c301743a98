/**
 * What a recorded LLM request is matched on at replay (issue 31): the request body in a canonical form
 * that keeps what decides the answer (model, system prompt, messages, tool results, tools offered) and
 * drops what legitimately differs from one run to the next. Pure: no I/O.
 *
 * Dropped or replaced:
 * - keys that carry ids, caches and sessions, wherever they are: tool-call ids (`tool_use_id`,
 *   `call_id`, and `id` when it is a string), `cache_control`, `metadata`, `user`,
 *   `previous_response_id`, `prompt_cache_key`, a thinking block's `signature`, and `stream` (how the
 *   answer is sent, not what it says);
 * - inside every string: the execution's absolute paths (`<agentRoot>`, `<execution>`, `<home>`,
 *   longest first), dates and times (`<date>`, `<time>`), UUIDs (`<uuid>`) and tool-call ids the
 *   agents quote (`toolu_…`, `call_…`: `<call-id>`), and measured times under keys that name one
 *   (`"durationMs":17`: `<n>`), and the ids of processes Gemini CLI reports (`Process Group PGID: 20`).
 *
 * Object keys are sorted, so key order never makes two requests differ.
 */
import { createHash } from 'node:crypto';

/** Keys dropped at any depth. */
const VOLATILE_KEYS = new Set([
  'tool_use_id',
  'call_id',
  'cache_control',
  'metadata',
  'previous_response_id',
  'prompt_cache_key',
  'stream',
]);
/** Keys dropped when their value is a string (a tool's schema may well have a property named `id`). */
const VOLATILE_STRING_KEYS = new Set(['id', 'user', 'signature']);

const UUID = /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g;
/** An ISO-8601 date, with its time when it has one. */
const DATE_TIME = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
const CLOCK = /\b\d{1,2}:\d{2}:\d{2}\b/g;
/** A file's time as `ls -l` shows it: `Nov 30 05:39`, or `Nov 30  2025` for an older one. */
const LS_TIME = /\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} +(?:\d{1,2}:\d{2}|\d{4})\b/g;
const CALL_ID = /\b(?:toolu|call|fc)_[A-Za-z0-9_-]{6,}\b/g;
/**
 * A measured time in JSON text an agent or a sentinel quotes (`"executionTimeMs":17`, `\"duration_seconds\":0.4`):
 * a key that names a duration, its number replaced. Keys only: a number in prose may well matter.
 */
const TIMING =
  /(\\?"[A-Za-z_]*(?:Ms|_ms|Millis|millis|Seconds|_seconds|_secs|Duration|duration|Elapsed|elapsed)[A-Za-z_]*\\?"\s*:\s*)-?\d+(?:\.\d+)?/g;
/** Codex's shell output header: `Chunk ID: 66b67e`, `Wall time: 0.0123 seconds`. */
const WALL_TIME = /\bWall time: \d+(?:\.\d+)? seconds\b/g;
const CHUNK_ID = /\bChunk ID: [0-9a-f]+\b/g;
/** Gemini CLI's shell output footer: `Process Group PGID: 20`, `Background PIDs: 31, 32`. */
const PROCESS_IDS = /\b(?:Process Group PGID|Background PIDs): \d+(?:, \d+)*/g;

/** Paths of this execution, replaced by their names in every string. */
export type Placeholders = Readonly<Record<string, string>>;

/** The body's canonical form: JSON values only, keys sorted, volatile parts out. */
export type Canonical = null | boolean | number | string | Canonical[] | { [key: string]: Canonical };

/**
 * Each path as it is, and as Claude Code names a folder after it (`/tmp/x/agentRoot` becomes
 * `-tmp-x-agentRoot`: its project memory), longest first.
 */
function placeholderPairs(placeholders: Placeholders): Array<[string, string]> {
  return Object.entries(placeholders)
    .filter(([, path]) => path.length > 1)
    .flatMap(([name, path]): Array<[string, string]> => {
      const bare = path.replace(/\/+$/, '');
      return [
        [bare, `<${name}>`],
        [bare.replace(/[^A-Za-z0-9]/g, '-'), `<${name}>`],
      ];
    })
    .sort((a, b) => b[0].length - a[0].length);
}

/**
 * Every volatile piece of text in one pattern, so a string is scanned once (a coding agent's request
 * holds tens of kilobytes of text, canonicalized at each of its turns): at each place the first
 * alternative that fits wins, a measured time's key kept (group 1).
 */
const VOLATILE_TEXT = new RegExp(
  [TIMING, UUID, DATE_TIME, LS_TIME, CLOCK, WALL_TIME, CHUNK_ID, PROCESS_IDS, CALL_ID]
    .map((r) => `(?:${r.source})`)
    .join('|'),
  'g',
);
// Told apart in the replacer by what they start with.
const UUID_WHOLE = new RegExp(`^${UUID.source}$`);
const DATE_START = /^\d{4}-\d{2}-\d{2}/;

function volatilePart(match: string, timingKey: string | undefined): string {
  if (timingKey !== undefined) return `${timingKey}<n>`;
  if (UUID_WHOLE.test(match)) return '<uuid>';
  if (DATE_START.test(match)) return match.length > 10 ? '<time>' : '<date>';
  if (match.startsWith('Wall time')) return 'Wall time: <n> seconds';
  if (match.startsWith('Chunk ID')) return 'Chunk ID: <id>';
  if (match.startsWith('Process Group PGID') || match.startsWith('Background PIDs'))
    return `${match.slice(0, match.indexOf(':'))}: <n>`;
  if (/^(?:toolu|call|fc)_/.test(match)) return '<call-id>';
  return '<time>';
}

/**
 * How to canonicalize one execution's texts: its path pairs, what takes its secrets out, and the long
 * texts already done.
 */
type Context = {
  pairs: ReadonlyArray<[string, string]>;
  redact: ((text: string) => string) | undefined;
  done: Map<string, string>;
  chars: number;
};

/**
 * Texts at least this long are remembered (an agent sends its system prompt, tools and history again
 * each turn), up to this many characters in all, the oldest forgotten first.
 */
const REMEMBERED_LENGTH = 256;
const REMEMBERED_CHARS = 8 * 1024 * 1024;

/**
 * Gemini CLI lists its skills in its system prompt in the order it found them, which changes from one
 * start to the next: the list is compared as a set (each `<skill>` block in order of its text).
 */
const SKILL_LIST = /<available_skills>([\s\S]*?)<\/available_skills>/g;
const SKILL = /<skill>[\s\S]*?<\/skill>/g;
function sortedSkills(_whole: string, inner: string): string {
  const skills = inner.match(SKILL) ?? [];
  if (skills.length < 2) return `<available_skills>${inner}</available_skills>`;
  return `<available_skills>\n${[...skills].sort().join('\n')}\n</available_skills>`;
}

/**
 * The same skills named in its activate_skill tool's description, "(Available: 'a', 'b')", in the same
 * changing order: compared as a set too.
 */
const AVAILABLE_NAMES = /\(Available: ((?:'[^'\n]*'(?:, )?)+)\)/g;
function sortedNames(_whole: string, names: string): string {
  const each = names.match(/'[^'\n]*'/g) ?? [];
  return `(Available: ${[...each].sort().join(', ')})`;
}

function canonicalText(text: string, context: Context): string {
  const long = text.length >= REMEMBERED_LENGTH;
  if (long) {
    const known = context.done.get(text);
    if (known !== undefined) return known;
  }
  let out = text;
  for (const [path, name] of context.pairs) if (out.includes(path)) out = out.replaceAll(path, name);
  out = out.replace(VOLATILE_TEXT, volatilePart);
  if (out.includes('<available_skills>')) out = out.replace(SKILL_LIST, sortedSkills);
  if (out.includes('(Available: ')) out = out.replace(AVAILABLE_NAMES, sortedNames);
  if (context.redact) out = context.redact(out);
  if (long && text.length <= REMEMBERED_CHARS / 4) {
    for (const [oldest, was] of context.done) {
      if (context.chars + text.length <= REMEMBERED_CHARS) break;
      context.done.delete(oldest);
      context.chars -= oldest.length + was.length;
    }
    context.done.set(text, out);
    context.chars += text.length + out.length;
  }
  return out;
}

/** The keys of an object as the canonical form keeps them (secrets out), sorted, each with its value. */
function keptEntries(
  value: object,
  redact: ((text: string) => string) | undefined,
): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || VOLATILE_KEYS.has(key)) continue;
    if (typeof item === 'string' && VOLATILE_STRING_KEYS.has(key)) continue;
    out.push([redact ? redact(key) : key, item]);
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function canonicalValue(value: unknown, context: Context): Canonical {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return canonicalText(value, context);
  if (Array.isArray(value)) return value.map((item) => canonicalValue(item, context));
  if (typeof value === 'object') {
    const out: { [key: string]: Canonical } = {};
    for (const [key, item] of keptEntries(value, context.redact)) {
      // A key named __proto__ (JSON.parse makes it an own key) stays a key, not the object's prototype.
      if (key === '__proto__')
        Object.defineProperty(out, key, {
          value: canonicalValue(item, context),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[key] = canonicalValue(item, context);
    }
    return out;
  }
  return null;
}

/** One context per placeholders object (a run keeps one), so its long texts are canonicalized once. */
const contexts = new WeakMap<Placeholders, Context>();
const NO_PLACEHOLDERS: Placeholders = {};

function contextOf(placeholders: Placeholders, redact: ((text: string) => string) | undefined): Context {
  let context = contexts.get(placeholders);
  if (!context || context.redact !== redact) {
    context = { pairs: placeholderPairs(placeholders), redact, done: new Map(), chars: 0 };
    contexts.set(placeholders, context);
  }
  return context;
}

/**
 * `body` (a parsed request body) in its canonical form; `redact` takes secrets out of every text
 * (keys too). Keep one `placeholders` object (and `redact` function) for a run: its long texts are
 * done once.
 */
export function canonicalRequest(
  body: unknown,
  placeholders: Placeholders = NO_PLACEHOLDERS,
  redact?: (text: string) => string,
): Canonical {
  return canonicalValue(body, contextOf(placeholders, redact));
}

/** The parts of a conversation that grow turn by turn, per API: what `shapeOf` leaves out. */
const CONVERSATION_KEYS = new Set(['messages', 'input', 'contents']);

/**
 * A request without its conversation: model, system prompt, tools and settings. A sentinel's
 * messages hold the events it was shown, batched by time, so a replay shows it others; its
 * requests are matched by shape and order (match.ts).
 */
export function shapeOf(canonical: Canonical): Canonical {
  if (typeof canonical !== 'object' || canonical === null || Array.isArray(canonical)) return canonical;
  return Object.fromEntries(Object.entries(canonical).filter(([key]) => !CONVERSATION_KEYS.has(key)));
}

/** Long texts' digests, kept as the canonical texts are (the same string each turn), by size. */
const digests = new Map<string, string>();
let digestedChars = 0;

function digestOf(text: string): string {
  const known = digests.get(text);
  if (known !== undefined) return known;
  const digest = createHash('sha256').update(text).digest('base64');
  if (text.length <= REMEMBERED_CHARS / 4) {
    for (const oldest of digests.keys()) {
      if (digestedChars + text.length <= REMEMBERED_CHARS) break;
      digests.delete(oldest);
      digestedChars -= oldest.length;
    }
    digests.set(text, digest);
    digestedChars += text.length;
  }
  return digest;
}

/** The canonical value as hashed: JSON, a long text by its digest (hashed once, not at every turn). */
function hashed(value: Canonical, out: string[]): void {
  if (typeof value === 'string') {
    out.push(value.length >= REMEMBERED_LENGTH ? `#${digestOf(value)}` : JSON.stringify(value));
  } else if (Array.isArray(value)) {
    out.push('[');
    for (const item of value) {
      hashed(item, out);
      out.push(',');
    }
    out.push(']');
  } else if (value !== null && typeof value === 'object') {
    // Sorted as the canonical form's keys are (an object lists integer-like keys first, whatever order).
    out.push('{');
    for (const key of Object.keys(value).sort()) {
      const item = value[key] as Canonical;
      out.push(JSON.stringify(key), ':');
      hashed(item, out);
      out.push(',');
    }
    out.push('}');
  } else {
    out.push(JSON.stringify(value));
  }
}

/** A short, stable name of a canonical request: equal requests, equal fingerprints. */
export function fingerprintOf(canonical: Canonical): string {
  const parts: string[] = [];
  hashed(canonical, parts);
  return createHash('sha256').update(parts.join('')).digest('hex').slice(0, 32);
}

/** `hashed(canonicalValue(value))` in one walk, without building the canonical form. */
function hashedBody(value: unknown, context: Context, out: string[]): void {
  if (typeof value === 'string') {
    hashed(canonicalText(value, context), out);
  } else if (Array.isArray(value)) {
    out.push('[');
    for (const item of value) {
      hashedBody(item, context, out);
      out.push(',');
    }
    out.push(']');
  } else if (value !== null && typeof value === 'object') {
    out.push('{');
    for (const [key, item] of keptEntries(value, context.redact)) {
      out.push(JSON.stringify(key), ':');
      hashedBody(item, context, out);
      out.push(',');
    }
    out.push('}');
  } else {
    hashed(canonicalValue(value, context), out);
  }
}

/**
 * `fingerprintOf([method, path, canonicalRequest(body, placeholders, redact)])`, without building the
 * canonical form: what a replay computes for every request it answers (only a miss needs the form).
 */
export function requestFingerprint(
  method: string,
  path: string,
  body: unknown,
  placeholders: Placeholders = NO_PLACEHOLDERS,
  redact?: (text: string) => string,
): string {
  const parts: string[] = ['['];
  hashed(method, parts);
  parts.push(',');
  hashed(path, parts);
  parts.push(',');
  hashedBody(body, contextOf(placeholders, redact), parts);
  parts.push(',]');
  return createHash('sha256').update(parts.join('')).digest('hex').slice(0, 32);
}

/** Where two canonical requests first differ: a path (`messages[2].content[0].text`) and both values. */
export type Difference = { path: string; recorded: string; now: string };

/** Text around the first differing character, at most `room` characters either side. */
function around(a: string, b: string, room = 40): { recorded: string; now: string } {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  const from = Math.max(0, at - room);
  const cut = (s: string) =>
    `${from > 0 ? '…' : ''}${s.slice(from, at + room)}${at + room < s.length ? '…' : ''}`;
  return { recorded: cut(a), now: cut(b) };
}

function shown(value: Canonical | undefined): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

const isObject = (v: Canonical | undefined): v is { [key: string]: Canonical } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first difference between two canonical requests (keys in sorted order), or undefined. */
export function firstDifference(
  recorded: Canonical | undefined,
  now: Canonical | undefined,
  path = '',
): Difference | undefined {
  if (typeof recorded === 'string' && typeof now === 'string') {
    return recorded === now ? undefined : { path: path || '(body)', ...around(recorded, now) };
  }
  if (Array.isArray(recorded) && Array.isArray(now)) {
    for (let i = 0; i < Math.max(recorded.length, now.length); i++) {
      const found = firstDifference(recorded[i], now[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (isObject(recorded) && isObject(now)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(now)])].sort();
    for (const key of keys) {
      const found = firstDifference(recorded[key], now[key], path ? `${path}.${key}` : key);
      if (found) return found;
    }
    return undefined;
  }
  if (JSON.stringify(recorded) === JSON.stringify(now)) return undefined;
  return { path: path || '(body)', recorded: shown(recorded), now: shown(now) };
}
