import { constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { decodeText, type OmittedReason } from './text-content.ts';

export type FileContent = { content: string; omitted?: OmittedReason };

// Never follow a symlink out of the agent root, and never block on a FIFO swapped in after lstat.
// Both flags are 0 where the platform lacks them (Windows), which leaves the lstat check alone.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * The text of the regular file at `absolutePath` for a `file.updated` event: its UTF-8 text when it
 * is text and at most `maxBytes` long, otherwise '' with the reason. Never throws: a file that
 * vanished or cannot be read yields '' too (its own event follows if it vanished).
 */
export async function readFileContent(absolutePath: string, maxBytes: number): Promise<FileContent> {
  try {
    const link = await lstat(absolutePath);
    if (!link.isFile()) return { content: '', omitted: 'not-a-file' };
    if (link.size > maxBytes) return { content: '', omitted: 'too-large' };
    const handle = await open(absolutePath, OPEN_FLAGS);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) return { content: '', omitted: 'not-a-file' };
      if (stats.size > maxBytes) return { content: '', omitted: 'too-large' };
      const bytes = await readAtMost(handle, stats.size, maxBytes + 1);
      if (bytes.length > maxBytes) return { content: '', omitted: 'too-large' };
      const text = decodeText(bytes);
      return text === undefined ? { content: '', omitted: 'binary' } : { content: text };
    } finally {
      await handle.close();
    }
  } catch {
    return { content: '', omitted: 'unreadable' };
  }
}

/**
 * Up to `limit` bytes from the start of the file, expecting about `expected`: the file may have grown
 * since it was measured, so the buffer grows as needed but never past the limit.
 */
async function readAtMost(handle: FileHandle, expected: number, limit: number): Promise<Buffer> {
  let buffer = Buffer.allocUnsafe(Math.min(expected + 1, limit));
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length < buffer.length) continue;
    if (buffer.length >= limit) break;
    const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit));
    buffer.copy(grown, 0, 0, length);
    buffer = grown;
  }
  return buffer.subarray(0, length);
}
