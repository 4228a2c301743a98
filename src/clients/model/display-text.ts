/**
 * Text from a plan, an agent or a server made safe to show on a terminal or a page (pure).
 *
 * Printed raw, a control character is an instruction, not text: ESC starts sequences that set the
 * window title, clear the screen or write the clipboard (OSC 52), a lone CR overwrites a line, and the
 * bidirectional controls reorder what is drawn after them ("a\u202eevil" reads "alive"). Each is
 * shown instead as a visible, inert stand-in, so a name holding one still reads differently from one
 * that does not:
 * - C0 controls and DEL as their Control Pictures glyph (ESC `␛`, BEL `␇`, CR `␍`, DEL `␡`);
 * - C1 controls (U+0080-009F, 8-bit CSI, OSC...) and the bidirectional controls (U+202A-202E,
 *   U+2066-2069, U+200E, U+200F, U+061C) as `<U+202E>`;
 * - colour and style sequences (SGR, `ESC [ ... m`) are dropped: agents' tool output is full of them,
 *   and they can do nothing but colour.
 * Every other escape sequence keeps its printable tail (`␛]0;title␇`), so it shows what it would have done.
 */

/** SGR: ESC [ parameters m. Nothing but colour and style. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const SGR = /\u001b\[[0-9;:]*m/g;

/** The bidirectional controls: embeddings, overrides, isolates and marks. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
/** Every character shown as a stand-in in multi-line text: C0 (but LF and TAB), DEL, C1, bidi. */
const UNSAFE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI}]`);
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
/** As UNSAFE, LF and TAB included: what one-line text shows as stand-ins. */
const UNSAFE_IN_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI}]`);
const UNSAFE_IN_LINE_ALL = new RegExp(UNSAFE_IN_LINE.source, 'g');

function standIn(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '␡';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * Multi-line text (agent output, file content, a diff line): line breaks (CRLF and CR read as LF)
 * and tabs kept, every other control character shown as a stand-in.
 */
export function displayText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(SGR, '').replace(/\r\n?/g, '\n').replace(UNSAFE_ALL, standIn);
}

/** One-line text (a name, a path, a printed line): line breaks and tabs shown as stand-ins too. */
export function displayLine(text: string): string {
  if (!UNSAFE_IN_LINE.test(text)) return text;
  return text.replace(SGR, '').replace(UNSAFE_IN_LINE_ALL, standIn);
}

/** C1 and bidirectional controls, which JSON.stringify leaves raw (it escapes only C0). */
const RAW_IN_JSON = new RegExp(`[\\u007f-\\u009f${BIDI}]`);
const RAW_IN_JSON_ALL = new RegExp(RAW_IN_JSON.source, 'g');

/**
 * JSON for a terminal: the C1 and bidirectional controls JSON.stringify leaves raw written as `\u202e`
 * escapes, so the same JSON parses to the same value. They can stand only inside strings.
 */
export function displayJson(json: string): string {
  if (!RAW_IN_JSON.test(json)) return json;
  return json.replace(RAW_IN_JSON_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
