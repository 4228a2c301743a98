/**
 * A key indented deeper than the keys of its mapping (`port: 0` then `  host: x`): YAML reads the
 * value above and the lines down to that key's `:` as one multi-line implicit key, and the yaml
 * library reports it where that value starts, a line (or more) above the mistake. Its
 * MULTILINE_IMPLICIT_KEY error ends at the `:` of the misplaced key, so the problem goes to that
 * line, where the key starts (pure).
 */

type YamlError = { code: string; pos: [number, number] };

export type IndentedKey = { offset: number; valueOffset: number };

/** The misplaced key the first syntax error `first` is about, if it is one. */
export function indentedKey(
  text: string,
  errors: readonly YamlError[],
  first: YamlError,
): IndentedKey | undefined {
  if (first.code !== 'BLOCK_AS_IMPLICIT_KEY' && first.code !== 'MULTILINE_IMPLICIT_KEY') return undefined;
  const multiline = errors.find((e) => e.code === 'MULTILINE_IMPLICIT_KEY' && e.pos[0] === first.pos[0]);
  if (multiline === undefined) return undefined;
  const [start, colon] = multiline.pos;
  const lineStart = text.lastIndexOf('\n', colon - 1) + 1;
  // The key is on a later line than the value, and its line holds something before the `:`.
  if (lineStart <= start || colon > text.length) return undefined;
  const indent = /^[ \t]*/.exec(text.slice(lineStart, colon))?.[0].length ?? 0;
  if (lineStart + indent >= colon) return undefined;
  return { offset: lineStart + indent, valueOffset: start };
}
