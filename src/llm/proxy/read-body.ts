import type { IncomingMessage } from 'node:http';
import type { BodyHold } from './body-budget.ts';

export type BodyResult =
  | { ok: true; body: Buffer }
  | { ok: false; reason: 'too-large' | 'over-budget' | 'aborted' };

export type ReadBodyOptions = {
  /** Larger bodies are refused ('too-large'). */
  limit: number;
  /** The exchange's share of the in-flight budget; refused growth ends the read ('over-budget'). */
  hold: BodyHold;
};

const EMPTY = Buffer.alloc(0);
const FIRST_CAPACITY = 64 * 1024;

/**
 * Collects a request body as one Buffer (binary stays intact). A declared Content-Length is checked
 * and taken from the budget before anything is read, and the body is copied into one buffer of that
 * size; a chunked body is counted and taken from the budget as it arrives, in a buffer that doubles.
 * Each socket chunk is dropped once copied, so no list of small buffers outlives the read. On a
 * refusal the read stops (the caller answers and closes the connection).
 */
export function readBody(request: IncomingMessage, options: ReadBodyOptions): Promise<BodyResult> {
  const { limit, hold } = options;
  const header = request.headers['content-length'];
  // Node's parser accepts only digits here, and refuses a Content-Length beside chunked framing.
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined) {
    if (declared > limit) return Promise.resolve({ ok: false, reason: 'too-large' });
    if (!hold.grow(declared)) return Promise.resolve({ ok: false, reason: 'over-budget' });
    if (declared === 0) return Promise.resolve({ ok: true, body: EMPTY });
  }
  return new Promise((resolve) => {
    let buffer = declared === undefined ? EMPTY : Buffer.allocUnsafe(declared);
    let size = 0;
    const settle = (result: BodyResult) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('close', onClose);
      request.off('error', onClose);
      buffer = EMPTY;
      resolve(result);
    };
    const refuse = (reason: 'too-large' | 'over-budget') => {
      request.pause();
      settle({ ok: false, reason });
    };
    const onData = (chunk: Buffer) => {
      const next = size + chunk.length;
      if (declared === undefined) {
        if (next > limit) return refuse('too-large');
        if (!hold.grow(chunk.length)) return refuse('over-budget');
        if (next > buffer.length) {
          const grown = Buffer.allocUnsafe(
            Math.min(limit, Math.max(FIRST_CAPACITY, next, buffer.length * 2)),
          );
          buffer.copy(grown, 0, 0, size);
          buffer = grown;
        }
      } else if (next > declared) {
        // The parser stops at the declared length; this guards the copy below all the same.
        return refuse('too-large');
      }
      chunk.copy(buffer, size);
      size = next;
    };
    const onEnd = () => {
      const body = size === buffer.length ? buffer : tightCopy(buffer, size);
      settle({ ok: true, body });
    };
    const onClose = () => settle({ ok: false, reason: 'aborted' });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('close', onClose);
    request.on('error', onClose);
  });
}

/** The first `size` bytes in a buffer of their own, so the spare capacity is not kept alive. */
function tightCopy(buffer: Buffer, size: number): Buffer {
  if (size === 0) return EMPTY;
  const body = Buffer.allocUnsafe(size);
  buffer.copy(body, 0, 0, size);
  return body;
}
