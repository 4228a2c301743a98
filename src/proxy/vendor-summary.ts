import type { VendorApiRequest } from './vendor-request.ts';

/** What LoggingMiddleware says of a Messages request. */
export type VendorSummary = {
  model: string;
  messages: number;
  max_tokens: number | undefined;
  stream: boolean;
};

export function summarizeVendorRequest(request: VendorApiRequest): VendorSummary {
  return {
    model: request.model,
    messages: request.messages.length,
    max_tokens: request.max_tokens,
    stream: request.stream ?? false,
  };
}

// Bytes of JSON's grammar.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MAX_DEPTH = 256;

/** Thrown inside the scan for anything it is not sure of; the caller then parses for real. */
const UNSURE = Symbol('unsure');

type Span = { start: number; end: number };

/** The kinds of the other top-level values parseVendorRequest types ('0': a number; else any value). */
const TOP_LEVEL_KIND: Record<string, string> = {
  system: '"[',
  tools: '[',
  tool_choice: '{',
  thinking: '{',
  metadata: '{',
  stop_sequences: '[',
  temperature: '0',
  top_p: '0',
  top_k: '0',
};

/** The keys the scan looks at; any other is skipped unread. */
const KEYS = ['model', 'messages', 'max_tokens', 'stream', 'role', 'content', ...Object.keys(TOP_LEVEL_KIND)];
/** An escaped key that is none of KEYS. */
const OTHER_KEY = '';

/**
 * A one-pass scan of a Messages request body for what LoggingMiddleware logs, with no parse and no
 * object built: the JSON's structure is checked all the way (brackets, commas, colons, literals,
 * numbers), the top-level fields parseVendorRequest types by their kind, and each message by its role
 * and content; string contents are skipped unread (native indexOf). `undefined` when the body is not
 * that or the scan is not sure: the caller then parses for real. What it does not check: characters
 * inside strings, and shapes below a top-level field or a message (a content block's or tool_choice's
 * `type`, a tool's `name`, stop_sequences' items), which parseVendorRequest does.
 */
export function scanVendorSummary(body: Buffer): VendorSummary | undefined {
  try {
    return new Scan(body).request();
  } catch (error) {
    if (error === UNSURE) return undefined;
    throw error;
  }
}

class Scan {
  readonly #body: Buffer;
  #at = 0;
  #depth = 0;

  constructor(body: Buffer) {
    this.#body = body;
  }

  request(): VendorSummary {
    let model: Span | undefined;
    let messages: number | undefined;
    let maxTokens: Span | undefined;
    let stream: boolean | undefined;
    this.#space();
    this.#expect(OPEN_OBJECT);
    this.#members(CLOSE_OBJECT, (span) => {
      const key = this.#key(span);
      // JSON.parse keeps the last of repeated keys, and so does this.
      if (key === 'model') {
        model = this.#string();
      } else if (key === 'messages') {
        messages = this.#messages();
      } else if (key === 'max_tokens') {
        maxTokens = this.#number();
      } else if (key === 'stream') {
        stream = this.#boolean();
      } else {
        const wanted = key === undefined ? undefined : TOP_LEVEL_KIND[key];
        if (wanted !== undefined && !wanted.includes(this.#kind())) throw UNSURE;
        this.#value();
      }
    });
    this.#space();
    if (this.#at !== this.#body.length) throw UNSURE;
    if (model === undefined || model.end === model.start || messages === undefined) throw UNSURE;
    return {
      model: this.#text(model),
      messages,
      max_tokens: maxTokens === undefined ? undefined : this.#maxTokens(maxTokens),
      stream: stream ?? false,
    };
  }

  /** The elements of `messages`, each an object with a role of user or assistant and a content. */
  #messages(): number {
    this.#expect(OPEN_ARRAY);
    let count = 0;
    this.#elements(() => {
      count += 1;
      let role: string | undefined;
      let content = false;
      this.#expect(OPEN_OBJECT);
      this.#members(CLOSE_OBJECT, (span) => {
        const key = this.#key(span);
        if (key === 'role') {
          role = this.#text(this.#string());
        } else if (key === 'content') {
          const kind = this.#peek();
          if (kind !== QUOTE && kind !== OPEN_ARRAY) throw UNSURE;
          this.#value();
          content = true;
        } else {
          this.#value();
        }
      });
      if ((role !== 'user' && role !== 'assistant') || !content) throw UNSURE;
    });
    return count;
  }

  #maxTokens(span: Span): number {
    const value = Number(this.#body.toString('latin1', span.start, span.end));
    // parseVendorRequest wants a whole number, not below 0.
    if (!Number.isSafeInteger(value) || value < 0) throw UNSURE;
    return value;
  }

  /** `{` already taken: members up to `}`, each handed to `member` (with its key) after its colon. */
  #members(close: number, member: (key: Span) => void): void {
    this.#nest();
    this.#space();
    if (this.#peek() === close) {
      this.#at += 1;
      this.#depth -= 1;
      return;
    }
    for (;;) {
      this.#space();
      const key = this.#string();
      this.#space();
      this.#expect(COLON);
      this.#space();
      member(key);
      this.#space();
      const next = this.#take();
      if (next === close) break;
      if (next !== COMMA) throw UNSURE;
    }
    this.#depth -= 1;
  }

  #elements(element: () => void): void {
    this.#nest();
    this.#space();
    if (this.#peek() === CLOSE_ARRAY) {
      this.#at += 1;
      this.#depth -= 1;
      return;
    }
    for (;;) {
      this.#space();
      element();
      this.#space();
      const next = this.#take();
      if (next === CLOSE_ARRAY) break;
      if (next !== COMMA) throw UNSURE;
    }
    this.#depth -= 1;
  }

  /** Any value, checked and skipped. */
  #value(): void {
    const kind = this.#peek();
    if (kind === QUOTE) {
      this.#string();
    } else if (kind === OPEN_OBJECT) {
      this.#at += 1;
      this.#members(CLOSE_OBJECT, () => this.#value());
    } else if (kind === OPEN_ARRAY) {
      this.#at += 1;
      this.#elements(() => this.#value());
    } else if (kind === 0x74) {
      this.#literal('true');
    } else if (kind === 0x66) {
      this.#literal('false');
    } else if (kind === 0x6e) {
      this.#literal('null');
    } else {
      this.#number();
    }
  }

  #string(): Span {
    this.#expect(QUOTE);
    const body = this.#body;
    const start = this.#at;
    const length = body.length;
    let at = start;
    // A byte loop: Buffer#indexOf costs more per call than this per byte on text full of escapes.
    for (;;) {
      if (at >= length) throw UNSURE;
      const byte = body[at];
      if (byte === QUOTE) break;
      at += byte === BACKSLASH ? 2 : 1;
    }
    this.#at = at + 1;
    return { start, end: at };
  }

  /** A key's name when it is one the scan looks for, without decoding it; else undefined. */
  #key(span: Span): string | undefined {
    const length = span.end - span.start;
    for (const name of KEYS) {
      if (name.length !== length) continue;
      let same = true;
      for (let i = 0; i < length && same; i++) same = this.#body[span.start + i] === name.charCodeAt(i);
      if (same) return name;
    }
    // An escaped key (`"mod\u0065l"`) may still be one of them.
    if (this.#body.indexOf(BACKSLASH, span.start) < span.end) {
      const text = this.#text(span);
      return KEYS.includes(text) ? text : OTHER_KEY;
    }
    return undefined;
  }

  /** A string's value: escapes decoded by JSON.parse, only when there are any. */
  #text(span: Span): string {
    const raw = this.#body.toString('utf8', span.start, span.end);
    if (!raw.includes('\\')) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      throw UNSURE;
    }
  }

  #number(): Span {
    const start = this.#at;
    const body = this.#body;
    let at = start;
    if (body[at] === 0x2d) at += 1;
    if (body[at] === 0x30) at += 1;
    else if (isDigit(body[at])) while (isDigit(body[at])) at += 1;
    else throw UNSURE;
    if (body[at] === 0x2e) {
      at += 1;
      if (!isDigit(body[at])) throw UNSURE;
      while (isDigit(body[at])) at += 1;
    }
    if (body[at] === 0x65 || body[at] === 0x45) {
      at += 1;
      if (body[at] === 0x2b || body[at] === 0x2d) at += 1;
      if (!isDigit(body[at])) throw UNSURE;
      while (isDigit(body[at])) at += 1;
    }
    this.#at = at;
    return { start, end: at };
  }

  #boolean(): boolean {
    if (this.#peek() === 0x74) {
      this.#literal('true');
      return true;
    }
    this.#literal('false');
    return false;
  }

  #literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      if (this.#body[this.#at + i] !== word.charCodeAt(i)) throw UNSURE;
    }
    this.#at += word.length;
  }

  #nest(): void {
    this.#depth += 1;
    if (this.#depth > MAX_DEPTH) throw UNSURE;
  }

  #space(): void {
    const body = this.#body;
    let at = this.#at;
    for (;;) {
      const byte = body[at];
      if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
      at += 1;
    }
    this.#at = at;
  }

  /** The next value's kind: its first character, '0' for a number. */
  #kind(): string {
    const byte = this.#peek();
    return byte === 0x2d || isDigit(byte) ? '0' : String.fromCharCode(byte);
  }

  #peek(): number {
    return this.#body[this.#at] ?? -1;
  }

  #take(): number {
    const byte = this.#body[this.#at];
    if (byte === undefined) throw UNSURE;
    this.#at += 1;
    return byte;
  }

  #expect(byte: number): void {
    if (this.#take() !== byte) throw UNSURE;
  }
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}
