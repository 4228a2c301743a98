import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import { CLOSE, type ClientSession } from './client-session.ts';
import { textFrames } from './ws-frames.ts';

/**
 * The connected clients: what goes to all of them (broadcasts, the heartbeat, the close), and the
 * slow one dropped rather than allowed to hold the others back.
 */
export class ClientSessions {
  readonly #sessions = new Map<string, ClientSession>();
  readonly #log: Logger;
  readonly #closeGraceMs: number;

  constructor(options: { log: Logger; closeGraceMs: number }) {
    this.#log = options.log;
    this.#closeGraceMs = options.closeGraceMs;
  }

  get size(): number {
    return this.#sessions.size;
  }

  add(session: ClientSession): void {
    this.#sessions.set(session.id, session);
  }

  delete(session: ClientSession): void {
    this.#sessions.delete(session.id);
  }

  /** One event to every handshaken client. */
  broadcast(json: string): void {
    const payload = Buffer.from(json);
    for (const session of this.#sessions.values()) {
      if (session.handshaken) session.send(payload);
    }
  }

  /**
   * One commit's events are framed once and go to each client in one write: far fewer syscalls and
   * no per-client framing under load.
   */
  broadcastBatch(batch: ReadonlyArray<{ json: string }>): void {
    let frames: Buffer | undefined;
    for (const session of this.#sessions.values()) {
      if (!session.handshaken) continue;
      frames ??= textFrames(batch.map((b) => Buffer.from(b.json)));
      session.sendFrames(frames);
    }
  }

  dropSlow(session: ClientSession): void {
    this.#log.warn(
      { clientId: session.id, buffered: session.ws.bufferedAmount },
      'dropping a client that fell behind',
    );
    session.close(
      CLOSE.slowConsumer,
      'send buffer overflow: client too slow; reconnect and use history.sync',
      this.#closeGraceMs,
    );
  }

  /** Dead peers never answer a ping: terminate them on the next beat. */
  beat(): void {
    for (const session of this.#sessions.values()) {
      if (!session.alive) {
        this.#log.info({ clientId: session.id }, 'client missed a heartbeat; terminating');
        session.ws.terminate();
        continue;
      }
      session.alive = false;
      session.ws.ping();
    }
  }

  /** Closes every client with 1001 and `reason`; resolves once each has closed. */
  async closeAll(reason: string): Promise<void> {
    const closed = [...this.#sessions.values()].map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.ws.readyState === WebSocket.CLOSED) return resolve();
          s.ws.once('close', () => resolve());
          s.close(CLOSE.shutdown, reason, this.#closeGraceMs);
        }),
    );
    await Promise.all(closed);
  }
}
