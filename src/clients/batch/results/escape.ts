import { displayLine, displayText } from '../../model/display-text.ts';
import { oneLine } from '../../model/format.ts';

/**
 * Text from a batch (job ids, axis values, reasons: anything a plan, an agent or a file wrote) made
 * safe inside XML and HTML. Control and bidirectional characters become the visible stand-ins every
 * view shows (display-text.ts): XML 1.0 forbids most of them outright, and a NUL or an ESC in a report
 * should read as one. What XML 1.0 forbids besides (lone surrogates, U+FFFE, U+FFFF) becomes U+FFFD.
 */

const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 leaves out are the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

const entities = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/** Element content: line breaks and tabs kept. */
export const xmlText = (text: string): string => entities(displayText(text).replace(NOT_XML, '\ufffd'));

/** An attribute value (quoted with `"`): on one line, a line break shown as a stand-in. */
export const xmlAttribute = (text: string): string => entities(displayLine(text).replace(NOT_XML, '\ufffd'));

/** HTML text or a quoted attribute value: the same escapes serve both. */
export const html = xmlAttribute;

/**
 * A Markdown table cell: on one line (line breaks and runs of spaces as one space, control characters
 * as stand-ins), `\` and `|` escaped so the cell ends where the table says, and `<`, `>`, `&` as
 * entities so no text from the batch renders as HTML.
 */
export function markdownCell(text: string, max = 300): string {
  return oneLine(text, max)
    .replace(/[\\|]/g, (c) => `\\${c}`)
    .replace(/[&<>]/g, (c) => ENTITIES[c] ?? c);
}
