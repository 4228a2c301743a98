import { PassThrough, Readable } from 'node:stream';
import type { ProxyResponse } from './types.ts';

// Streams that carry exactly the target's bytes, so the target's Content-Length still holds.
const copies = new WeakSet<Readable>();

/** What an inspector's copy may hold unread before it is dropped (the agent's copy goes on). */
export const DEFAULT_MAX_COPY_BUFFERED_BYTES = 32 * 1024 * 1024;

/** Code of the error a copy is destroyed with when its reader fell too far behind. */
export const COPY_OVERFLOW_CODE = 'PROXY_COPY_OVERFLOW';

export function isCopyOfBody(stream: Readable): boolean {
  return copies.has(stream);
}

/**
 * Gives a response middleware its own copy of the body, leaving one for the agent.
 * The agent's copy keeps backpressure; the inspector's copy buffers, so a slow inspector never
 * stalls the agent, up to `maxBufferedBytes` unread: past it the copy is destroyed with an error of
 * code PROXY_COPY_OVERFLOW and the agent's copy goes on alone. Read the copy in the background: the
 * agent's copy flows only after all response middleware returned, so awaiting the copy's end inside
 * the handler can deadlock.
 */
export function duplicateBody(
  response: ProxyResponse,
  options: { maxBufferedBytes?: number } = {},
): { response: ProxyResponse; copy: Readable } {
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_COPY_BUFFERED_BYTES;
  const body = response.body;
  if (!(body instanceof Readable)) {
    return { response, copy: Readable.from(body === undefined ? [] : [body]) };
  }
  const forAgent = new PassThrough();
  copies.add(forAgent);
  const copy = new PassThrough({ highWaterMark: 1 << 20 });
  // An inspector that never listens for errors must not crash the proxy when its copy fails;
  // one that reads (`for await`, stream consumers) still sees the error.
  copy.on('error', () => {});
  body.on('data', (chunk: Buffer) => {
    if (!copy.destroyed) {
      copy.write(chunk);
      // Readable and writable sides both buffer; together they are what the reader left unread.
      if (copy.writableLength + copy.readableLength > maxBuffered) {
        const message = `the copy's reader fell more than ${maxBuffered} bytes behind; copy dropped`;
        copy.destroy(Object.assign(new Error(message), { code: COPY_OVERFLOW_CODE }));
      }
    }
    if (!forAgent.write(chunk)) body.pause();
  });
  forAgent.on('drain', () => body.resume());
  body.once('end', () => {
    forAgent.end();
    if (!copy.destroyed) copy.end();
  });
  body.once('error', (error) => {
    forAgent.destroy(error);
    copy.destroy(error);
  });
  // The agent went away: stop reading the target too.
  forAgent.once('close', () => {
    if (!body.readableEnded) body.destroy();
  });
  return { response: { ...response, body: forAgent }, copy };
}
