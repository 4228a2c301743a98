import { once } from 'node:events';
import pino, { type Logger } from 'pino';
import { diagnose } from '../../platform/storage/probe.ts';

/** Log lines kept in memory while the log file cannot be written (a full disk); beyond, they are dropped. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** How long closing the log may take: a disk that takes no more lines must not hold the exit. */
const CLOSE_TIMEOUT_MS = 2_000;

/**
 * Lines logged within this long go to the file in one write (or sooner, past BATCH_BYTES): a write
 * per line cost the proxy, which logs each exchange twice, as much CPU as its sockets (issue 16).
 */
const BATCH_MS = 20;
const BATCH_BYTES = 64 * 1024;

export type ServerLog = {
  logger: Logger;
  /**
   * Writes out what is buffered and closes the file; resolves within CLOSE_TIMEOUT_MS whatever
   * happens, never rejects (a log that cannot be written is not worth dying, or hanging, for).
   */
  close(): Promise<void>;
};

/**
 * `.ribosome/logs/server.log` (pino JSON lines, written asynchronously, the lines of each 20 ms in one
 * write; close() writes what waits). A write that fails (a full or read-only disk) is said on stderr
 * (once), and writing is tried again with the next lines: the log is for people, never a reason to
 * stop the server. `redact`: a batch of whole lines (each ending in a newline) as it may be written
 * (the server's secrets taken out of it). Once a batch, not once a line: the proxy logs each exchange
 * twice, and a pass per line was work on its path (issue 36); no line reaches the file unredacted.
 */
export async function openServerLog(
  file: string,
  level: string,
  redact: (lines: string) => string = (lines) => lines,
): Promise<ServerLog> {
  const destination = pino.destination({
    dest: file,
    sync: false,
    mkdir: true,
    maxLength: MAX_BUFFERED_BYTES,
  });
  await once(destination, 'ready');
  let warned = false;
  destination.on('error', (error: unknown) => {
    if (warned) return;
    warned = true;
    const why = diagnose(error, file)?.message ?? (error as Error).message;
    process.stderr.write(`ribosome: warning: the server log cannot be written (${why}); retrying\n`);
  });
  // Lines logged after close (a late callback) are dropped, not written to a closed file.
  let open = true;
  let waiting = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting === '') return;
    const lines = waiting;
    waiting = '';
    destination.write(redact(lines));
  };
  const stream = {
    write(line: string) {
      if (!open) return;
      waiting += line;
      if (waiting.length >= BATCH_BYTES) flush();
      else timer ??= setTimeout(flush, BATCH_MS);
    },
  };
  return {
    logger: pino({ level, base: { pid: process.pid } }, stream),
    // Never flushSync: on a write error other than EAGAIN it sleeps and retries forever. A file that
    // does not close cleanly is destroyed (what is buffered is lost), or pino's exit hook would
    // flushSync it and hang the exit.
    close: () =>
      new Promise<void>((resolve) => {
        if (!open) return resolve();
        flush();
        open = false;
        const giveUp = () => {
          clearTimeout(timer);
          try {
            destination.destroy(); // a no-op once destroyed
          } catch {
            // Not open: nothing to hang on.
          }
          resolve();
        };
        const timer = setTimeout(giveUp, CLOSE_TIMEOUT_MS);
        destination.once('error', giveUp);
        destination.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        try {
          destination.end();
        } catch {
          giveUp();
        }
      }),
  };
}
