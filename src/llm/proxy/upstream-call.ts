import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/** What a forwarded request needs beside the target. */
export type Outgoing = { method: string; path: string; headers: string[]; body: Buffer };

/** Where the answer's body goes once its head came: each chunk as it arrives, then its end. */
export type BodySink = {
  /** One chunk of the body; false asks for a pause until `UpstreamCall.resume()`. */
  chunk(bytes: Buffer): boolean;
  end(): void;
};

export type CallListener = {
  /**
   * The answer's head (a final status: 1xx ones are passed over). Its body goes to `call.sink`, so
   * set it here, or keep the chunks in `call.stream()`.
   */
  head(call: UpstreamCall, status: number, headers: IncomingHttpHeaders): void;
  /** The call failed: before its head (`headed` false) or during the body; never after cancel(). */
  failed(error: Error, headed: boolean): void;
};

/** A body nobody takes: its bytes are read and dropped, so the socket goes back to the pool. */
const DROP: BodySink = { chunk: () => true, end: () => {} };

/** The reason undici is given when the proxy cancels a call (the agent left, the proxy stops). */
class CallCancelled extends Error {
  readonly code = 'PROXY_CALL_CANCELLED';
}

/** Whether an error is the proxy's own cancelling of a call: nobody's failure, never logged as one. */
export function isCallCancelled(error: unknown): boolean {
  return error instanceof CallCancelled;
}

/**
 * One request to the target over undici's dispatch interface: the answer's body goes chunk by chunk
 * to a sink (the agent's response, written as it comes), and becomes a stream only when something
 * asks for one (`stream()`: a middleware that reads it, a recording). Cheaper than `request()`: no
 * promise, no stream and no pipe per exchange (issue 36).
 */
export class UpstreamCall implements Dispatcher.DispatchHandler {
  sink: BodySink = DROP;
  readonly #listener: CallListener;
  #controller: Dispatcher.DispatchController | undefined;
  #cancelled = false;
  #headed = false;
  #stream: Readable | undefined;

  constructor(dispatcher: Dispatcher, outgoing: Outgoing, timeoutMs: number, listener: CallListener) {
    this.#listener = listener;
    dispatcher.dispatch(
      {
        method: outgoing.method as Dispatcher.HttpMethod,
        path: outgoing.path,
        headers: outgoing.headers,
        body: outgoing.body.length > 0 ? outgoing.body : null,
        // Both 0 (never) or the idle timeout: silence before the head, then between body chunks.
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      this,
    );
  }

  /** Stops the call (before it is sent, or while its answer comes); the listener hears no more. */
  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.sink = DROP;
    const reason = new CallCancelled('the exchange ended before the answer did');
    this.#controller?.abort(reason);
    // Its readers (a middleware's copy, a recording) hear that the body was cut, not that it ended.
    this.#stream?.destroy(reason);
  }

  /** Goes on reading the body after a sink asked for a pause. */
  resume(): void {
    this.#controller?.resume();
  }

  /**
   * The body as a stream, made on first call (once the head came): chunks since then go into it, the
   * reader sets the pace, destroying it cancels the call, and a failure of the body destroys it with
   * the error. Listen for 'error' on it.
   */
  stream(): Readable {
    if (this.#stream) return this.#stream;
    const stream = new Readable({
      read: () => this.resume(),
      destroy: (error, callback) => {
        if (stream.readableEnded) return callback(error);
        this.cancel();
        // As undici's own bodies: a body destroyed before its end failed, and says so.
        callback(error ?? new CallCancelled('the body was destroyed before its end'));
      },
    });
    this.#stream = stream;
    this.sink = { chunk: (bytes) => stream.push(bytes), end: () => stream.push(null) };
    return stream;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#cancelled)
      controller.abort(new CallCancelled('the exchange ended before the request was sent'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders) {
    if (status < 200 || this.#cancelled) return;
    this.#headed = true;
    this.#listener.head(this, status, headers);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.sink.chunk(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.sink.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#cancelled) return;
    if (this.#stream) {
      this.#stream.destroy(error);
      return;
    }
    this.#listener.failed(error, this.#headed);
  }
}
