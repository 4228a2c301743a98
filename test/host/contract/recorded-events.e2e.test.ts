import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { z } from 'zod';
import { SCHEMA_DIR } from '../../../src/host/contract/generate.ts';
import { journalRows, killAll, runToEnd, startServer, tempDir } from '../../helpers/server-process.ts';

/**
 * The shipped JSON Schemas hold for what a real server sends: every event of a real run (the
 * unattended example: retries, a fallback model, verification gates, budgets, a failed webhook) and
 * the connection events of a restarted server, each checked against schema/events/<type>.schema.json
 * as read from disk. zod is the checker: z.fromJSONSchema turns each file back into a validator.
 */

const dirs: Array<{ remove(): void }> = [];
afterAll(() => {
  killAll();
  for (const dir of dirs) dir.remove();
});

const validators = new Map<string, z.ZodType>();
function validatorOf(type: string): z.ZodType {
  let validator = validators.get(type);
  if (validator === undefined) {
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, 'events', `${type}.schema.json`), 'utf8'));
    validator = z.fromJSONSchema(schema);
    validators.set(type, validator);
  }
  return validator;
}

/** Every event that does not match its type's shipped schema, with the first problem found. */
function mismatches(events: ReadonlyArray<{ type: string; [field: string]: unknown }>): string[] {
  return events.flatMap((event) => {
    const result = validatorOf(event.type).safeParse(event);
    return result.success ? [] : [`${event.type}: ${z.prettifyError(result.error).split('\n')[0]}`];
  });
}

describe('recorded events validate against schema/events/*.schema.json', () => {
  it('a shipped schema refuses an event that breaks it (the check can fail)', () => {
    const event = { id: 'e', timestamp: 't', type: 'codon.completed', data: { codonId: 'a', success: true } };
    expect(mismatches([event])).toHaveLength(1);
    expect(
      mismatches([
        { ...event, data: { ...event.data, cost: 0, duration: 1, exitStatus: { type: 'success' } } },
      ]),
    ).toEqual([]);
  });

  it('every event of a real run, and the connection events of the server that resumes it', async () => {
    const dir = tempDir('ribosome-contract-');
    dirs.push(dir);
    const run = await runToEnd(
      'examples/plans/unattended.yaml',
      dir.path,
      'examples/scripts/unattended.yaml',
      [],
      { timeoutMs: 90_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const journaled = journalRows(dir.path).map((row) => JSON.parse(row.json) as { type: string });
    const types = new Set(journaled.map((e) => e.type));
    for (const type of ['codon.started', 'codon.completed', 'verify.completed', 'state.snapshot', 'error'])
      expect(types).toContain(type);
    expect(mismatches(journaled)).toEqual([]);

    // A second server on the same execution: the handshake with history, ping, history.sync,
    // checkpoint.list and a refused command, as raw frames.
    const server = await startServer('examples/plans/unattended.yaml', dir.path, [
      '--scripted-provider',
      'examples/scripts/unattended.yaml',
    ]);
    const ws = new WebSocket(server.url);
    const frames: Array<{ type: string; data: Record<string, unknown> }> = [];
    const done = new Promise<void>((resolve) =>
      ws.on('message', (raw) => {
        const frame = JSON.parse(raw.toString());
        frames.push(frame);
        if (frame.type === 'pong' && frame.data.clientId !== undefined) resolve();
      }),
    );
    await new Promise((resolve) => ws.once('open', resolve));
    const send = (frame: object) => ws.send(JSON.stringify(frame));
    send({ type: 'handshake', data: { mode: 'readonly', sendPreviousEvents: true } });
    send({ id: 'p', type: 'ping' });
    send({ id: 'l', type: 'checkpoint.list', data: {} });
    send({ id: 'h', type: 'history.sync' });
    send({ id: 'bad', type: 'codon.start', data: { codonId: 7 } });
    // Answered in order: once the broadcast pong is back, every answer before it is too.
    send({ id: 'last', type: 'ping.broadcast' });
    await done;
    ws.close();
    server.kill('SIGTERM');
    await server.exited;

    const sent = new Set(frames.map((f) => f.type));
    for (const type of [
      'handshake.response',
      'server.ready',
      'pong',
      'checkpoint.list',
      'history.batch',
      'error',
    ])
      expect(sent).toContain(type);
    expect(frames.find((f) => f.type === 'server.ready')?.data.resumed).toBeDefined();
    expect(mismatches(frames)).toEqual([]);
    // The events inside handshake.response and history.batch are checked by their own schemas too.
    const nested = frames.flatMap((f) =>
      f.type === 'handshake.response'
        ? (f.data.eventHistory as Array<{ type: string }>)
        : f.type === 'history.batch'
          ? (f.data.events as Array<{ type: string }>)
          : [],
    );
    expect(nested.length).toBeGreaterThan(journaled.length);
    expect(mismatches(nested)).toEqual([]);
  }, 150_000);
});
