/**
 * A small, safe template language for sentinel prompts: text with `{{ name.path }}` placeholders,
 * nothing else (no code, no loops, no helpers). `\{{` writes a literal `{{`; a lone `}}` is plain
 * text, so JSON examples in a prompt need no escaping.
 *
 * Templates are parsed once when the sentinel loads: an unclosed `{{`, a placeholder that is not a
 * dotted name, or a name the variables do not know is a parse error then, not at every call. Values
 * that depend on the events (a field an event lacks) can only fail when rendering.
 */
export type TemplateError = { message: string; line: number; column: number };
type Segment = string | { name: string; path: readonly string[]; line: number; column: number };
export type Template = { readonly segments: readonly Segment[]; readonly names: readonly string[] };

/** Says why a name is unknown (undefined: it is known). */
export type CheckName = (path: readonly string[]) => string | undefined;
/** The text of a known name, or why it has none for this render. */
export type Lookup = (path: readonly string[]) => { ok: true; text: string } | { ok: false; message: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_$-]+)*$/;

/**
 * Parses a template; on failure `errors` holds every problem found (a placeholder that is wrong is
 * skipped and the rest still read; an unclosed `{{` ends the text) and `error` the first of them.
 */
export function parseTemplate(
  text: string,
  check: CheckName,
):
  | { ok: true; template: Template }
  | { ok: false; error: TemplateError; errors: TemplateError[]; names: readonly string[] } {
  const segments: Segment[] = [];
  const names: string[] = [];
  const errors: TemplateError[] = [];
  const fail = (line: number, column: number, message: string) => errors.push({ message, line, column });
  let literal = '';
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open === -1) {
      literal += text.slice(i);
      break;
    }
    if (open > 0 && text[open - 1] === '\\') {
      literal += `${text.slice(i, open - 1)}{{`;
      i = open + 2;
      continue;
    }
    literal += text.slice(i, open);
    const close = text.indexOf('}}', open + 2);
    const { line, column } = position(text, open);
    if (close === -1) {
      fail(line, column, 'unclosed "{{": close it with "}}", or write "\\{{" for a literal "{{"');
      break;
    }
    i = close + 2;
    const name = text.slice(open + 2, close).trim();
    if (!NAME.test(name)) {
      fail(
        line,
        column,
        `"{{${text.slice(open + 2, close)}}}" is not a variable: write a dotted name such as {{events}} or {{codon.id}}`,
      );
      continue;
    }
    const path = name.split('.');
    const unknown = check(path);
    if (unknown !== undefined) {
      fail(line, column, `{{${name}}}: ${unknown}`);
      continue;
    }
    if (literal) segments.push(literal);
    literal = '';
    segments.push({ name, path, line, column });
    names.push(name);
  }
  const [first] = errors;
  if (first !== undefined) return { ok: false, error: first, errors, names };
  if (literal) segments.push(literal);
  return { ok: true, template: { segments, names } };
}

export function renderTemplate(
  template: Template,
  lookup: Lookup,
): { ok: true; text: string } | { ok: false; error: TemplateError } {
  let out = '';
  for (const segment of template.segments) {
    if (typeof segment === 'string') {
      out += segment;
      continue;
    }
    const value = lookup(segment.path);
    if (!value.ok) {
      return {
        ok: false,
        error: {
          message: `{{${segment.name}}}: ${value.message}`,
          line: segment.line,
          column: segment.column,
        },
      };
    }
    out += value.text;
  }
  return { ok: true, text: out };
}

export function formatTemplateError(error: TemplateError, where: string): string {
  return `${where} line ${error.line}, column ${error.column}: ${error.message}`;
}

function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
