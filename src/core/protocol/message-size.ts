/**
 * How long a message to the running agent may be, and how a typing UI cuts one to fit. No zod here:
 * the web dashboard bundles it (codon-message.ts has the schemas and re-exports these).
 */

/** Longest codon.message text, in UTF-8 bytes. */
export const MESSAGE_MAX_BYTES = 32 * 1024;

/**
 * `text` cut to what a message may hold (MESSAGE_MAX_BYTES of UTF-8), between characters: what a
 * typing UI keeps, so what it shows is what is sent.
 */
export function fitMessage(text: string): string {
  const encoder = new TextEncoder();
  if (text.length * 3 <= MESSAGE_MAX_BYTES || encoder.encode(text).length <= MESSAGE_MAX_BYTES) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += encoder.encode(char).length;
    if (bytes > MESSAGE_MAX_BYTES) break;
    end += char.length;
  }
  return text.slice(0, end);
}
