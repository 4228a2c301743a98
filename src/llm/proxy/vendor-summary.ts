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
/** KEYS by their length, so that a key is compared with the two or three names of its length at most. */
const KEYS_BY_LENGTH: string[][] = [];
for (const name of KEYS) {
  KEYS_BY_LENGTH[name.length] ??= [];
  KEYS_BY_LENGTH[name.length]!.push(name);
}

/**
 * A one-pass scan of a Messages request body for what LoggingMiddleware logs, with no parse and no
 * object built: the JSON's structure is checked all the way (brackets, commas, colons, literals,
 * numbers), the top-level fields parseVendorRequest types by their kind, and each message by its role
 * and content; string contents are skipped unread. `undefined` when the body is not that or the scan
 * is not sure: the caller then parses for real. What it does not check: characters inside strings,
 * and shapes below a top-level field or a message (a content block's or tool_choice's `type`, a tool's
 * `name`, stop_sequences' items), which parseVendorRequest does. It allocates nothing but its result
 * (no closure, no span object per value): it runs on every exchange (issue 16).
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
  /** Where the string #string read last starts and ends (the index of its closing quote). */
  #start = 0;
  #end = 0;

  constructor(body: Buffer) {
    this.#body = body;
  }

  request(): VendorSummary {
    let modelStart = -1;
    let modelEnd = -1;
    let messages: number | undefined;
    let maxTokensStart = -1;
    let maxTokensEnd = -1;
    let stream: boolean | undefined;
    this.#space();
    this.#expect(OPEN_OBJECT);
    if (this.#open(CLOSE_OBJECT)) {
      do {
        const key = this.#memberKey();
        // JSON.parse keeps the last of repeated keys, and so does this.
        if (key === 'model') {
          this.#string();
          modelStart = this.#start;
          modelEnd = this.#end;
        } else if (key === 'messages') {
          messages = this.#messages();
        } else if (key === 'max_tokens') {
          maxTokensStart = this.#at;
          this.#number();
          maxTokensEnd = this.#at;
        } else if (key === 'stream') {
          stream = this.#boolean();
        } else {
          const wanted = key === undefined ? undefined : TOP_LEVEL_KIND[key];
          if (wanted !== undefined && !wanted.includes(this.#kind())) throw UNSURE;
          this.#value();
        }
      } while (this.#next(CLOSE_OBJECT));
    }
    this.#space();
    if (this.#at !== this.#body.length) throw UNSURE;
    if (modelEnd === modelStart || messages === undefined) throw UNSURE;
    return {
      model: this.#text(modelStart, modelEnd),
      messages,
      max_tokens: maxTokensStart === -1 ? undefined : this.#maxTokens(maxTokensStart, maxTokensEnd),
      stream: stream ?? false,
    };
  }

  /** The elements of `messages`, each an object with a role of user or assistant and a content. */
  #messages(): number {
    this.#expect(OPEN_ARRAY);
    let count = 0;
    if (!this.#open(CLOSE_ARRAY)) return count;
    do {
      this.#space();
      count += 1;
      let role: string | undefined;
      let content = false;
      this.#expect(OPEN_OBJECT);
      if (this.#open(CLOSE_OBJECT)) {
        do {
          const key = this.#memberKey();
          if (key === 'role') {
            this.#string();
            role = this.#text(this.#start, this.#end);
          } else if (key === 'content') {
            const kind = this.#peek();
            if (kind !== QUOTE && kind !== OPEN_ARRAY) throw UNSURE;
            this.#value();
            content = true;
          } else {
            this.#value();
          }
        } while (this.#next(CLOSE_OBJECT));
      }
      if ((role !== 'user' && role !== 'assistant') || !content) throw UNSURE;
    } while (this.#next(CLOSE_ARRAY));
    return count;
  }

  #maxTokens(start: number, end: number): number {
    const value = Number(this.#body.toString('latin1', start, end));
    // parseVendorRequest wants a whole number, not below 0.
    if (!Number.isSafeInteger(value) || value < 0) throw UNSURE;
    return value;
  }

  /**
   * Just after a `{` or `[`: one level deeper; false (and the level closed) when `close` comes
   * first, the container being empty.
   */
  #open(close: number): boolean {
    this.#nest();
    this.#space();
    if (this.#peek() !== close) return true;
    this.#at += 1;
    this.#depth -= 1;
    return false;
  }

  /** After a member or element: true when a comma says another follows, false at `close` (taken). */
  #next(close: number): boolean {
    this.#space();
    const next = this.#take();
    if (next === COMMA) return true;
    if (next !== close) throw UNSURE;
    this.#depth -= 1;
    return false;
  }

  /** A member's key and colon: the key's name when it is one of KEYS, else undefined. */
  #memberKey(): string | undefined {
    this.#skipKey();
    return this.#key(this.#start, this.#end);
  }

  /** A member's key and colon, the key unread; then the space before the value. */
  #skipKey(): void {
    this.#space();
    this.#string();
    this.#space();
    this.#expect(COLON);
    this.#space();
  }

  /** Any value, checked and skipped. */
  #value(): void {
    const kind = this.#peek();
    if (kind === QUOTE) {
      this.#string();
    } else if (kind === OPEN_OBJECT) {
      this.#at += 1;
      if (!this.#open(CLOSE_OBJECT)) return;
      do {
        this.#skipKey();
        this.#value();
      } while (this.#next(CLOSE_OBJECT));
    } else if (kind === OPEN_ARRAY) {
      this.#at += 1;
      if (!this.#open(CLOSE_ARRAY)) return;
      do {
        this.#space();
        this.#value();
      } while (this.#next(CLOSE_ARRAY));
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

  /** A string: its contents' bounds go to #start and #end. */
  #string(): void {
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
    this.#start = start;
    this.#end = at;
  }

  /** A key's name when it is one the scan looks for, without decoding it; else undefined. */
  #key(start: number, end: number): string | undefined {
    const body = this.#body;
    const length = end - start;
    const names = KEYS_BY_LENGTH[length];
    if (names !== undefined) {
      for (const name of names) {
        let same = true;
        for (let i = 0; i < length && same; i++) same = body[start + i] === name.charCodeAt(i);
        if (same) return name;
      }
    }
    // An escaped key (`"mod\u0065l"`) may still be one of them.
    for (let i = start; i < end; i++) {
      if (body[i] !== BACKSLASH) continue;
      const text = this.#text(start, end);
      return KEYS.includes(text) ? text : undefined;
    }
    return undefined;
  }

  /** A string's value: escapes decoded by JSON.parse, only when there are any. */
  #text(start: number, end: number): string {
    const raw = this.#body.toString('utf8', start, end);
    if (!raw.includes('\\')) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      throw UNSURE;
    }
  }

  #number(): void {
    const body = this.#body;
    let at = this.#at;
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
