import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { COMMAND_TYPES, ErrorCode, EVENT_TYPES } from '../../../src/core/protocol/index.ts';
import { SCHEMA_DIR } from '../../../src/host/contract/generate.ts';

describe('schema/asyncapi.yaml', () => {
  it('is a valid AsyncAPI 3 document of every command and event, the handshake and the error codes', async () => {
    const text = await readFile(join(SCHEMA_DIR, 'asyncapi.yaml'), 'utf8');
    const { document, diagnostics } = await new Parser().parse(text);
    // Severity 0 is an error, 1 a warning (2 and 3 are hints, such as "3.1.0 exists").
    const problems = diagnostics
      .filter((d) => d.severity <= 1)
      .map((d) => `${d.path.join('.')}: ${d.message}`);
    expect(problems).toEqual([]);
    expect(document).toBeDefined();
    if (document === undefined) return;
    expect(document.version()).toBe('3.0.0');
    expect(
      document
        .servers()
        .all()
        .map((s) => s.protocol()),
    ).toEqual(['ws']);

    const names = document
      .messages()
      .all()
      .map((m) => m.name());
    expect(names.sort()).toEqual(['handshake', ...COMMAND_TYPES, ...EVENT_TYPES].sort());

    const handshake = document.operations().get('receive.handshake');
    expect(handshake?.action()).toBe('receive');
    const replies = handshake
      ?.reply()
      ?.messages()
      .all()
      .map((m) => m.name());
    expect(replies).toEqual(['handshake.response', 'server.ready']);
    expect(document.operations().get('send.verify.started')?.action()).toBe('send');

    const raw = document.json() as unknown as {
      components: {
        messages: Record<string, Record<string, unknown>>;
        schemas: { ErrorCode: { oneOf: Array<{ const: string; description: string }> } };
      };
    };
    expect(raw.components.schemas.ErrorCode.oneOf.map((c) => c.const)).toEqual(ErrorCode.options);
    expect(raw.components.messages['event.verify.started']?.['x-ribosome-extension']).toBe(true);
    expect(raw.components.messages['event.codon.started']?.['x-ribosome-extension']).toBeUndefined();
    // How each event travels, as src/core/protocol/delivery.ts states it (test/host/contract/delivery.e2e.test.ts
    // checks that against a real server).
    const summary = (key: string) => raw.components.messages[key]?.summary;
    expect(summary('event.checkpoint.list')).toBe(
      'Server State event; answering checkpoint.list: sent only to the client it answers, not journaled.',
    );
    expect(summary('event.error')).toContain(
      'answering a command (it carries data.commandId): sent only to the client it answers, not journaled',
    );
    expect(summary('event.error')).toContain(
      'STORAGE_FAILED (the journal can no longer be written): sent to every handshaken client, not journaled',
    );
    expect(summary('event.pong')).toContain(
      'answering ping.broadcast (it carries data.clientId): sent to every handshaken client, not journaled',
    );
    expect(summary('event.codon.started')).toBe(
      'Server State event; journaled, then sent to every handshaken client.',
    );
  }, 60_000);
});
