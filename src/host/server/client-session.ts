import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { ClientMode } from '../../core/protocol/index.ts';
import { TokenBucket } from './rate-limit.ts';
import { textFrameHeader } from './ws-frames.ts';

const TEXT = { binary: false } as const;

/** Close codes the server uses (docs/protocol.md#the-control-protocol-in-practice). */
export const CLOSE = {
  shutdown: 1001,
  slowConsumer: 1008,
  /** No `handshake` message within the handshake timeout (4000-4999: private use, RFC 6455). */
  handshakeTimeout: 4408,
} as const;

/** One connected client: its socket, granted mode and liveness, and a bounded send path. */
export class ClientSession {
  readonly id: string;
  readonly ws: WebSocket;
  readonly #socket: Socket;
  mode: ClientMode | undefined;
  /** The upgrade had an Origin: a page's connection. */
  fromPage = false;
  /** The most the dashboard ticket it came in with grants, if it came with one. */
  ticketMode: ClientMode | undefined;
  alive = true;
  /** Set while a history.sync streams to this client: one at a time. */
  historySyncing = false;
  /** This client's codon.message allowance (limits.messageBurst at once, then limits.messageRate a second). */
  readonly messages: TokenBucket;
  #closing = false;
  readonly #maxBuffered: number;
  readonly #onOverflow: (session: ClientSession) => void;

  constructor(options: {
    id: string;
    ws: WebSocket;
    socket: Socket;
    maxBufferedBytes: number;
    onOverflow: (session: ClientSession) => void;
    messageRate: { perSecond: number; burst: number };
  }) {
    this.id = options.id;
    this.ws = options.ws;
    this.#socket = options.socket;
    this.#maxBuffered = options.maxBufferedBytes;
    this.#onOverflow = options.onOverflow;
    this.messages = new TokenBucket(options.messageRate, Date.now());
  }

  get handshaken(): boolean {
    return this.mode !== undefined;
  }

  get closing(): boolean {
    return this.#closing || this.ws.readyState !== this.ws.OPEN;
  }

  /**
   * Queues a text frame. A client that has fallen more than the buffer limit behind is dropped
   * rather than allowed to grow the server's memory or slow the others.
   */
  send(payload: string | Buffer, callback?: (error?: Error) => void): void {
    if (this.closing) {
      callback?.(new Error('connection closing'));
      return;
    }
    if (this.ws.bufferedAmount > this.#maxBuffered) {
      this.#onOverflow(this);
      callback?.(new Error('send buffer overflow'));
      return;
    }
    this.ws.send(payload, TEXT, callback);
  }

  /**
   * Writes one text frame of `bytes` UTF-8 bytes made of `parts` (written one after the other: no
   * copy into one buffer), bounded like `send`. Resolves once the socket has taken it (handed it to the kernel), or at once
   * if it was not sent (closing, dropped); a connection that closes resolves it too. Safe beside
   * `ws.send` for the reason `sendFrames` is.
   */
  sentFrame(parts: readonly string[], bytes: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.closing) return resolve();
      if (this.ws.bufferedAmount > this.#maxBuffered) {
        this.#onOverflow(this);
        return resolve();
      }
      const done = () => {
        this.ws.off('close', done);
        resolve();
      };
      this.ws.on('close', done);
      this.#socket.cork();
      this.#socket.write(textFrameHeader(bytes));
      parts.forEach((part, i) => {
        this.#socket.write(part, 'utf8', i === parts.length - 1 ? done : undefined);
      });
      this.#socket.uncork();
    });
  }

  /**
   * Writes frames already encoded (`textFrames`) to the socket as they are: one write for a whole
   * commit's events. Safe beside `ws.send` because the server never compresses (perMessageDeflate
   * off) nor sends blobs, so ws writes every frame whole and at once, never queued behind this.
   * Bounded like `send`.
   */
  sendFrames(frames: Buffer): void {
    if (this.closing) return;
    if (this.ws.bufferedAmount > this.#maxBuffered) {
      this.#onOverflow(this);
      return;
    }
    this.#socket.write(frames);
  }

  /** Closes with a code and reason; a peer that does not answer is cut off after `graceMs`. */
  close(code: number, reason: string, graceMs: number): void {
    if (this.#closing) return;
    this.#closing = true;
    this.ws.close(code, reason);
    const timer = setTimeout(() => this.ws.terminate(), graceMs);
    timer.unref();
    this.ws.once('close', () => clearTimeout(timer));
  }
}
