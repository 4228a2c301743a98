/**
 * How long a message to the running agent may be, and how a typing UI cuts one to fit. No zod here:
 * the web dashboard bundles it (codon-message.ts has the schemas and re-exports these).
 */

/** Longest codon.message text, in UTF-8 bytes. */
export const MESSAGE_MAX_BYTES = 32 * 1024;

/**
 * A review comment's text at most (UTF-8 bytes), and a review's note: below a message's 32 KiB, so one
 * comment of the most with the longest note always fits the review the agent reads (its quote cut as
 * needed). Here, without zod, for the dashboard's boxes; review.ts re-exports them.
 */
export const REVIEW_TEXT_MAX_BYTES = 16 * 1024;
export const REVIEW_NOTE_MAX_BYTES = 4 * 1024;

/**
 * `text` cut to what a message may hold (MESSAGE_MAX_BYTES of UTF-8), between characters: what a
 * typing UI keeps, so what it shows is what is sent.
 */
export function fitMessage(text: string): string {
  return fitText(text, MESSAGE_MAX_BYTES);
}

/** `text` cut to at most `maxBytes` of UTF-8, between characters (a comment box, a note). */
export function fitText(text: string, maxBytes: number): string {
  const encoder = new TextEncoder();
  if (text.length * 3 <= maxBytes || encoder.encode(text).length <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += encoder.encode(char).length;
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** `12.5 of 16 KiB` once `text` uses more than three quarters of `maxBytes`; nothing before. */
export function sizeNearLimit(text: string, maxBytes: number): string | undefined {
  if (text.length * 3 <= maxBytes * 0.75) return undefined;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes <= maxBytes * 0.75) return undefined;
  const kib = (n: number) => (Math.round((n / 1024) * 10) / 10).toString();
  return `${kib(bytes)} of ${kib(maxBytes)} KiB`;
}
