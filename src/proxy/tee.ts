import { PassThrough, Readable } from 'node:stream';
import type { ProxyResponse } from './types.ts';

// Streams that carry exactly the target's bytes, so the target's Content-Length still holds.
const copies = new WeakSet<Readable>();

export function isCopyOfBody(stream: Readable): boolean {
  return copies.has(stream);
}

/**
 * Gives a response middleware its own copy of the body, leaving one for the agent.
 * The agent's copy keeps backpressure; the inspector's copy buffers, so a slow inspector never
 * stalls the agent. Read the copy in the background: the agent's copy flows only after all
 * response middleware returned, so awaiting the copy's end inside the handler can deadlock.
 */
export function duplicateBody(response: ProxyResponse): { response: ProxyResponse; copy: Readable } {
  const body = response.body;
  if (!(body instanceof Readable)) {
    return { response, copy: Readable.from(body === undefined ? [] : [body]) };
  }
  const forAgent = new PassThrough();
  copies.add(forAgent);
  const copy = new PassThrough({ highWaterMark: 1 << 20 });
  body.on('data', (chunk: Buffer) => {
    copy.write(chunk);
    if (!forAgent.write(chunk)) body.pause();
  });
  forAgent.on('drain', () => body.resume());
  body.once('end', () => {
    forAgent.end();
    copy.end();
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
