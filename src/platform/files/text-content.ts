/** How far into a file we look for a NUL byte: git's own heuristic, and as cheap. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Why a file's content was left out of a `file.updated` event (its `content` is then ''). */
export type OmittedReason = 'binary' | 'too-large' | 'not-a-file' | 'unreadable';

/** Whether the bytes look binary: a NUL byte near the start. Text files essentially never hold one. */
export function hasBinarySniff(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/**
 * The bytes as text, or undefined when they are not text: a NUL byte in the first 8 KiB, or not
 * valid UTF-8 anywhere. Binary content never reaches a client as mojibake. A leading BOM is dropped.
 */
export function decodeText(bytes: Uint8Array): string | undefined {
  if (hasBinarySniff(bytes)) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
