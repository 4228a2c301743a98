import pino, { type Logger } from 'pino';

export type LogLine = { level: number; msg: string; [field: string]: unknown };

/** A pino logger whose lines land in an array, parsed, for assertions. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        lines.push(JSON.parse(line));
      },
    },
  );
  return { logger, lines };
}

export function linesTagged(lines: readonly LogLine[], prefix: string): LogLine[] {
  return lines.filter((line) => line.msg.startsWith(prefix));
}
