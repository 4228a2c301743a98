import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** The last non-empty line of a background run's log (its summary or refusal), at most 300 characters. */
export function lastLogLine(logFile: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(logFile, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 8192);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    // The run's own announcements say nothing of why it ended.
    const last = lines.filter((l) => !/^(listening|dashboard) /.test(l)).at(-1);
    return last === undefined ? undefined : last.slice(0, 300);
  } finally {
    closeSync(fd);
  }
}

/** The address a headless `ribosome run` printed once it listened (`listening ws://HOST:PORT`), if it has. Pure. */
export function listeningAddress(output: string): string | undefined {
  return /^listening (wss?:\/\/\S+)$/m.exec(output)?.[1];
}
