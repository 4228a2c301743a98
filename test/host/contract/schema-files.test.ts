import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_TYPES, EVENT_TYPES } from '../../../src/core/protocol/index.ts';
import { protocolExtensions } from '../../../src/host/contract/extensions.ts';
import { listFiles, SCHEMA_DIR } from '../../../src/host/contract/generate.ts';
import { contractFiles, REGENERATE } from '../../../src/host/contract/schema-files.ts';

const fresh = contractFiles();

describe('schema/ (generated from the zod schemas)', () => {
  it('holds one JSON Schema per command and per event, the AsyncAPI document and the plan schemas', () => {
    const names = Object.keys(fresh);
    for (const type of ['handshake', ...COMMAND_TYPES])
      expect(names).toContain(`commands/${type}.schema.json`);
    for (const type of EVENT_TYPES) expect(names).toContain(`events/${type}.schema.json`);
    expect(names).toEqual(
      expect.arrayContaining(['asyncapi.yaml', 'plan.schema.json', 'sentinel.schema.json']),
    );
  });

  it('every shipped file equals fresh output, and none is left over', async () => {
    const stale: string[] = [];
    for (const [name, text] of Object.entries(fresh)) {
      const shipped = await readFile(join(SCHEMA_DIR, name), 'utf8').catch(() => undefined);
      if (shipped !== text) stale.push(`schema/${name} is ${shipped === undefined ? 'missing' : 'stale'}`);
    }
    for (const name of await listFiles(SCHEMA_DIR)) {
      if (!Object.hasOwn(fresh, name)) stale.push(`schema/${name} is no longer generated`);
    }
    expect(stale, `run \`${REGENERATE}\` and commit schema/`).toEqual([]);
  });

  it('a command schema says what the server accepts: required fields, defaults, bounds', () => {
    const start = JSON.parse(fresh['commands/codon.start.schema.json']!);
    expect(start.required).toEqual(['id', 'type', 'data']);
    expect(start.properties.id).toMatchObject({ type: 'string', minLength: 1, maxLength: 256 });
    expect(start.properties.data.required).toEqual(['codonId']);
    expect(start.properties.data.properties.skipPreCommands.default).toBe(false);
    const handshake = JSON.parse(fresh['commands/handshake.schema.json']!);
    expect(handshake.required).toEqual(['type', 'data']);
    expect(handshake.properties.data.properties.mode.enum).toEqual(['readonly', 'readandwrite']);
  });

  it('marks extensions: our fields and events, our error codes with their meaning', () => {
    const idle = JSON.parse(fresh['events/server.idle.schema.json']!);
    expect(idle.properties.data.properties.nextCodonId['x-ribosome-extension']).toBe(true);
    expect(idle.properties.data.properties.reason['x-ribosome-extension']).toBeUndefined();
    const gate = JSON.parse(fresh['events/verify.completed.schema.json']!);
    expect(gate.properties.data['x-ribosome-extension']).toBe(true);
    const error = JSON.parse(fresh['events/error.schema.json']!);
    const codes = error.definitions.ErrorCode.oneOf as Array<Record<string, unknown>>;
    const code = (name: string) => codes.find((c) => c.const === name);
    expect(code('INSUFFICIENT_PERMISSIONS')).toMatchObject({
      description: expect.stringContaining('readonly'),
    });
    expect(code('INSUFFICIENT_PERMISSIONS')?.['x-ribosome-extension']).toBeUndefined();
    expect(code('INVALID_COMMAND')).toMatchObject({ 'x-ribosome-extension': true });
    expect(codes.every((c) => typeof c.description === 'string' && c.description.length > 10)).toBe(true);
  });
});

/** `name` as a word inside some `code span` of the text (`heldBy: budget`, `state.snapshot.budgets`). */
function inCode(text: string, name: string): boolean {
  const word = new RegExp(`(?<![\\w-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`);
  return (text.match(/`[^`]+`/g) ?? []).some((span) => word.test(span));
}

describe('the list of protocol extensions (docs/protocol.md#protocol-extensions)', () => {
  it('names every extension the schemas mark', async () => {
    const page = await readFile('docs/protocol.md', 'utf8');
    const start = page.indexOf('\n## Protocol extensions\n');
    expect(start).toBeGreaterThan(0);
    const end = page.indexOf('\n## ', start + 1);
    const section = page.slice(start, end < 0 ? undefined : end);
    const missing = protocolExtensions().flatMap((e) => {
      const names =
        e.kind === 'message'
          ? [e.type]
          : e.kind === 'field'
            ? [e.name]
            : e.kind === 'values'
              ? e.values
              : [e.code];
      return names.filter((n) => !inCode(section, n)).map((n) => `${n} (${JSON.stringify(e)})`);
    });
    expect(missing).toEqual([]);
  });
});
