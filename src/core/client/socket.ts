/**
 * The one thing the typed client needs of a WebSocket: Node's `ws` and the browser's global
 * WebSocket both fit behind it, so the protocol logic (handshake, commands, waiters, history) is
 * written once in ClientCore.
 */
export interface SocketPort {
  readonly isOpen: boolean;
  send(frame: string): void;
  onMessage(listener: (text: string, isBinary: boolean) => void): void;
  /** Called once when the socket closes (after it opened). */
  onClose(listener: () => void): void;
  /** Closes and resolves once closed (a socket that does not answer is dropped after a while). */
  close(code: number, reason: string): Promise<void>;
}

export type SocketOptions = {
  timeoutMs: number;
  origin?: string;
  token?: string;
  /** A dashboard ticket, offered as a subprotocol (ticketProtocols). */
  ticket?: string;
};

/** Opens a socket; rejects when it cannot (a RefusedUpgradeError when the server answered with HTTP). */
export type OpenSocket = (url: string, options: SocketOptions) => Promise<SocketPort>;

/** A server answered the upgrade with an HTTP status instead (`status`: 503 when it is full). */
export class RefusedUpgradeError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'RefusedUpgradeError';
    this.status = status;
  }
}

/** A command id: random, and available where `crypto.randomUUID` is not (pages served over plain http). */
export function newCommandId(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const bytes = c.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
