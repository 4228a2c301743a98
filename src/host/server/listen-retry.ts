/**
 * With a dynamic main port, companions that sit at the main port + n (the proxy at + 1) may find their
 * port taken by another process; the server then listens again on another dynamic port instead of
 * failing, a bounded number of times. With a port the user chose, the first failure stands. Pure: the
 * attempt and the port chooser are given.
 */

/** Attempts before a dynamic start gives up (each one a new main port: a collision is rare). */
export const LISTEN_ATTEMPTS = 8;

/** A companion's port (or the main one, on a chosen dynamic attempt) was taken by another process. */
export function isPortTaken(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EADDRINUSE' || code === 'PROXY_PORT_IN_USE';
}

export type ListenRetry<T> = {
  /** The main port the user asked for; 0 = dynamic, the only case that is retried. */
  port: number;
  /** [0 for every attempt: the OS chooses] The port of dynamic attempt n (1-based); tests inject one. */
  dynamicPort?: ((attempt: number) => number) | undefined;
  attempts?: number;
  /** Listens on `port` and starts what sits beside it; throws on failure. */
  attempt(port: number): Promise<T>;
  /** Undoes a failed attempt before the next one (only called when another follows). */
  undo(error: unknown, attempt: number): Promise<void>;
};

export async function listenWithRetry<T>(options: ListenRetry<T>): Promise<T> {
  const attempts = options.attempts ?? LISTEN_ATTEMPTS;
  for (let n = 1; ; n++) {
    const port = options.port === 0 ? (options.dynamicPort?.(n) ?? 0) : options.port;
    try {
      return await options.attempt(port);
    } catch (error) {
      if (options.port !== 0 || n >= attempts || !isPortTaken(error)) throw error;
      await options.undo(error, n);
    }
  }
}
