import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openServerLog } from '../../../src/host/server/server-log.ts';
import { waitFor } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/server-process.ts';

const linesOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { msg: string; n?: number });

describe('the server log (lines written in batches)', () => {
  const t = tempDir();
  afterAll(() => t.remove());

  it('writes a line while the server runs, without waiting for more lines or for close', async () => {
    const file = join(t.path, 'running', 'server.log');
    const log = await openServerLog(file, 'info');
    log.logger.info('alone');
    await waitFor(() => linesOf(file).some((line) => line.msg === 'alone'), 'the line in the file');
    await log.close();
  });

  it('keeps every line, in order, through a burst and a close right after it', async () => {
    const file = join(t.path, 'burst', 'server.log');
    const log = await openServerLog(file, 'info');
    // More than one batch's worth of bytes, then close before any timer ran.
    for (let n = 0; n < 5_000; n++) log.logger.info({ n, pad: 'x'.repeat(40) }, 'burst');
    await log.close();
    log.logger.info('after close');
    const lines = linesOf(file);
    expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 5_000 }, (_, n) => n));
    expect(lines.some((line) => line.msg === 'after close')).toBe(false);
  });

  it('writes no line with a secret in it: the redactor gets whole lines, a batch at a time', async () => {
    const file = join(t.path, 'redacted', 'server.log');
    const seen: string[] = [];
    const log = await openServerLog(file, 'info', (lines) => {
      seen.push(lines);
      return lines.replaceAll('s3cret-value', '[redacted:KEY]');
    });
    log.logger.info({ url: '/v1/messages?key=s3cret-value' }, 'first');
    log.logger.info('second');
    log.logger.warn({ err: { message: 'failed with s3cret-value' } }, 'third');
    await log.close();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('s3cret-value');
    expect(linesOf(file).map((line) => line.msg)).toEqual(['first', 'second', 'third']);
    expect(text).toContain('"url":"/v1/messages?key=[redacted:KEY]"');
    // Every batch is whole JSON lines, so a value is never cut between two calls.
    for (const batch of seen) {
      expect(batch.endsWith('\n')).toBe(true);
      for (const line of batch.slice(0, -1).split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    }
  });
});
