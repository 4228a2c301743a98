import { Lexer } from 'yaml';

/**
 * Where an unclosed quote or flow collection opened. The yaml library reports a missing closing
 * quote at the end of the file and a missing `]` or `}` where the next block starts; the mistake is
 * where the quote or bracket opened, so problems point there (pure).
 */

// Markers the lexer inserts that take no room in the text: document, scalar, flow-error-end.
const MARKERS = new Set(['\u0002', '\u001f', '\u0018']);

export type Opening = { offset: number; what: 'quote' | 'bracket'; char: string };

/** The unclosed quote or flow bracket the error at `offset` is about, if the text has one before it. */
export function unclosedOpening(
  text: string,
  offset: number,
  kind: 'quote' | 'bracket',
): Opening | undefined {
  const open: Array<{ offset: number; char: string }> = [];
  let at = 0;
  let quote: Opening | undefined;
  for (const token of new Lexer().lex(text)) {
    if (MARKERS.has(token)) continue;
    if (at > offset) break;
    if (token === '[' || token === '{') open.push({ offset: at, char: token });
    else if ((token === ']' || token === '}') && open.length > 0) open.pop();
    else if (
      (token.startsWith('"') || token.startsWith("'")) &&
      (token.length === 1 || !token.trimEnd().endsWith(token[0]!))
    ) {
      quote = { offset: at, what: 'quote', char: token[0]! };
    }
    at += token.length;
  }
  if (kind === 'quote') return quote;
  const last = open.at(-1);
  return last === undefined ? undefined : { offset: last.offset, what: 'bracket', char: last.char };
}
