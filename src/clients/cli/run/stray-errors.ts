import type { Runtime } from '../../../host/server/runtime.ts';

/**
 * A failure that escapes every handler must not take the server (and the work it holds) down: it
 * is logged (with its stack) and reported to clients as an error event, and the server keeps serving.
 */
export function keepServingOnStrayErrors(runtime: Pick<Runtime, 'logger' | 'bus'>): void {
  // A write to a terminal that is gone (EIO) or a closed pipe (EPIPE) is no stray error: reported
  // on that same stream it would fail again, in a loop that fills the log and the journal.
  const broken = new Set<NodeJS.WriteStream>();
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error) => {
      if (broken.has(stream)) return;
      broken.add(stream);
      runtime.logger.warn(
        { err: error },
        `cannot write to ${stream === process.stdout ? 'stdout' : 'stderr'}`,
      );
    });
  }
  const report = (error: unknown, what: string) => {
    runtime.logger.error({ err: error }, `${what}; the server keeps running`);
    if (!broken.has(process.stderr))
      process.stderr.write(
        `ribosome: ${what} (see the server log): ${(error as Error)?.message ?? String(error)}\n`,
      );
    runtime.bus
      .publish('error', {
        message: `internal error (${what}): ${(error as Error)?.message ?? String(error)}`,
        fatal: false,
        severity: 'warning',
        code: 'INTERNAL_ERROR',
      })
      .catch(() => {});
  };
  process.on('uncaughtException', (error) => report(error, 'uncaught exception'));
  process.on('unhandledRejection', (reason) => report(reason, 'unhandled rejection'));
}
