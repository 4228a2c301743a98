/**
 * Where JSON text breaks the grammar (pure). `JSON.parse` does not always say where (V8 names no
 * position for an unexpected token), so a file that fails it is scanned again here for the offset
 * of its first error and words a person can act on: a trailing comma, a missing quote, a comment.
 */

export type JsonSyntaxError = { offset: number; message: string; hint: string };

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const LITERALS = ['true', 'false', 'null'] as const;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings refuse raw control characters
const STRING_CHAR = /[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

class Stop extends Error {
  readonly error: JsonSyntaxError;
  constructor(error: JsonSyntaxError) {
    super(error.message);
    this.error = error;
  }
}

/** The first syntax error of `text` as JSON, or undefined when it parses. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let at = text.startsWith('\uFEFF') ? 1 : 0;
  const fail = (message: string, hint: string, offset = at): never => {
    throw new Stop({ offset, message, hint });
  };
  const found = () => (at >= text.length ? 'the end of the file' : `"${text[at]}"`);
  const skip = () => {
    while (at < text.length && WHITESPACE.has(text[at]!)) at++;
    if (text.startsWith('//', at) || text.startsWith('/*', at))
      fail('Comments are not allowed in JSON.', 'Remove the comment, or write the file as YAML.');
  };
  const value = (): void => {
    skip();
    const c = text[at];
    if (c === '{' || c === '[') {
      container(c === '{' ? '}' : ']');
      return;
    }
    if (c === '"') {
      string();
      return;
    }
    const literal = LITERALS.find((word) => text.startsWith(word, at));
    if (literal !== undefined) {
      at += literal.length;
      return;
    }
    NUMBER.lastIndex = at;
    if ((c === '-' || (c !== undefined && c >= '0' && c <= '9')) && NUMBER.test(text)) {
      at = NUMBER.lastIndex;
      return;
    }
    if (c === "'") fail('Strings must be in double quotes in JSON.', 'Use "..." instead of \'...\'.');
    fail(
      `Expected a value, found ${found()}.`,
      'Write a string in double quotes, a number, true, false, null, an object or an array.',
    );
  };
  const string = (): void => {
    const start = at;
    at++;
    while (text[at] !== '"') {
      if (at >= text.length) fail('This string is never closed.', 'Close it with a double quote.', start);
      STRING_CHAR.lastIndex = at;
      if (!STRING_CHAR.test(text)) {
        const c = text[at]!;
        if (c === '\\') fail('Invalid escape in a string.', 'Write \\\\ for a backslash.');
        fail('A string cannot hold a raw line break or control character.', 'Write \\n for a line break.');
      }
      at = STRING_CHAR.lastIndex;
    }
    at++;
  };
  const container = (close: '}' | ']'): void => {
    const object = close === '}';
    let comma = at;
    at++;
    skip();
    if (text[at] === close) {
      at++;
      return;
    }
    for (;;) {
      if (object) {
        skip();
        if (text[at] !== '"') {
          if (text[at] === '}') fail(trailingComma('}'), trailingHint, comma);
          fail(
            `Expected a property name in double quotes, found ${found()}.`,
            'Quote every key: "key": value.',
          );
        }
        string();
        skip();
        if (text[at] !== ':')
          fail(`Expected ":" after the property name, found ${found()}.`, 'Write "key": value.');
        at++;
      }
      skip();
      if (text[at] === close && !object) fail(trailingComma(']'), trailingHint, comma);
      value();
      skip();
      if (text[at] === ',') {
        comma = at;
        at++;
        continue;
      }
      if (text[at] === close) {
        at++;
        return;
      }
      fail(
        `Expected "," or "${close}", found ${found()}.`,
        `Separate ${object ? 'properties' : 'items'} with commas and close the ${object ? 'object' : 'array'} with ${close}.`,
      );
    }
  };
  try {
    value();
    skip();
    if (at < text.length)
      fail(`Unexpected ${found()} after the end of the JSON value.`, 'A JSON file holds one value.');
    return undefined;
  } catch (error) {
    if (error instanceof Stop) return error.error;
    if (error instanceof RangeError) return undefined; // nested too deep to scan: JSON.parse's words
    throw error;
  }
}

const trailingComma = (close: string) => `Trailing comma before "${close}".`;
const trailingHint = 'Remove the comma after the last item: JSON allows none.';
