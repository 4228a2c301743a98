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

/** What `passAlong` tells of a body it hands on. */
export type BodyObserver = {
  chunk(bytes: Buffer): void;
  /** The body ended whole. */
  end?(): void;
  /** The body failed (the stream handed on fails with it). */
  error?(error: Error): void;
  /** The stream handed on closed: after `end`, or cut (the agent left, the body failed). */
  close?(): void;
};

/**
 * The body as a stream carrying its bytes on, each chunk shown to `observer` first. The reader of the
 * returned stream sets the pace (backpressure reaches the body); its failure and its end pass on, and
 * a reader that goes away stops the body too.
 */
export function passAlong(body: Readable, observer: BodyObserver): PassThrough {
  const onward = new PassThrough();
  // Its failure is the body's, which the body's owner hears; until its reader listens (a middleware
  // still thinking), it must not take the process down.
  onward.on('error', () => {});
  body.on('data', (chunk: Buffer) => {
    observer.chunk(chunk);
    if (!onward.write(chunk)) body.pause();
  });
  onward.on('drain', () => body.resume());
  body.once('end', () => {
    onward.end();
    observer.end?.();
  });
  body.once('error', (error) => {
    onward.destroy(error);
    observer.error?.(error);
  });
  // The reader went away: stop reading the body too.
  onward.once('close', () => {
    observer.close?.();
    if (!body.readableEnded) body.destroy();
  });
  return onward;
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
  const copy = new PassThrough({ highWaterMark: 1 << 20 });
  // An inspector that never listens for errors must not crash the proxy when its copy fails;
  // one that reads (`for await`, stream consumers) still sees the error.
  copy.on('error', () => {});
  const forAgent = passAlong(body, {
    chunk(chunk) {
      if (copy.destroyed) return;
      copy.write(chunk);
      // Readable and writable sides both buffer; together they are what the reader left unread.
      if (copy.writableLength + copy.readableLength > maxBuffered) {
        const message = `the copy's reader fell more than ${maxBuffered} bytes behind; copy dropped`;
        copy.destroy(Object.assign(new Error(message), { code: COPY_OVERFLOW_CODE }));
      }
    },
    end: () => {
      if (!copy.destroyed) copy.end();
    },
    error: (error) => copy.destroy(error),
  });
  copies.add(forAgent);
  return { response: { ...response, body: forAgent }, copy };
}
