import { describe, expect, it } from 'vitest';
import { acceptFrame, parseFrame } from '../../../src/host/server/frame.ts';

const LIMIT = 1024;
const parse = (text: string) => acceptFrame(Buffer.from(text), false, LIMIT);

describe('parseFrame', () => {
  it.each([
    ['not json', 'INVALID_MESSAGE', undefined],
    ['[1,2]', 'INVALID_MESSAGE', undefined],
    ['"text"', 'INVALID_MESSAGE', undefined],
    ['null', 'INVALID_MESSAGE', undefined],
    ['{"id":"a1"}', 'INVALID_MESSAGE', 'a1'],
    ['{"id":"a2","type":"codon.launch"}', 'UNKNOWN_COMMAND', 'a2'],
    ['{"type":"ping"}', 'INVALID_COMMAND', undefined],
    ['{"id":"","type":"ping"}', 'INVALID_COMMAND', undefined],
    ['{"id":"a3","type":"codon.start","data":{}}', 'INVALID_COMMAND', 'a3'],
    ['{"id":"a4","type":"codon.start","data":{"codonId":42}}', 'INVALID_COMMAND', 'a4'],
    [
      '{"id":"a5","type":"rollback.toCodon","data":{"codonId":"x","checkpointType":"middle"}}',
      'INVALID_COMMAND',
      'a5',
    ],
    ['{"id":"a6","type":"rollback.toCheckpoint","data":{"checkpointSha":"zz"}}', 'INVALID_COMMAND', 'a6'],
    ['{"type":"handshake","data":{"mode":"admin"}}', 'INVALID_COMMAND', undefined],
    ['{"type":"handshake"}', 'INVALID_COMMAND', undefined],
  ])('%s -> %s', (text, code, commandId) => {
    const parsed = parse(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem.code).toBe(code);
    expect(parsed.problem.commandId).toBe(commandId);
    expect(parsed.problem.message.length).toBeGreaterThan(10);
  });

  it('words each problem as path: expected, got; several joined; no raw zod output', () => {
    const message = (text: string) => {
      const parsed = parse(text);
      return parsed.ok ? undefined : parsed.problem.message;
    };
    expect(message('{"id":"a","type":"codon.start","data":{"codonId":42}}')).toBe(
      'invalid codon.start: data.codonId: expected a string, got a number',
    );
    expect(message('{"id":"a","type":"codon.start"}')).toBe(
      'invalid codon.start: data: expected an object, got nothing',
    );
    expect(message('{"id":"","type":"ping"}')).toBe('invalid ping: id: expected a non-empty string, got ""');
    expect(message(JSON.stringify({ id: 'i'.repeat(300), type: 'ping' }))).toBe(
      'invalid ping: id: expected at most 256 characters, got 300',
    );
    expect(message('{"id":"a","type":"codon.forceStop","data":{"reason":["x"]}}')).toBe(
      'invalid codon.forceStop: data.reason: expected a string, got an array',
    );
    expect(message('{"type":"handshake"}')).toBe('invalid handshake: data: expected an object, got nothing');
    const many = message(
      JSON.stringify({ id: 'm', type: 'rollback.toCodon', data: { codonId: 1, autoRestart: 'yes' } }),
    );
    expect(many).toMatch(
      /^invalid rollback\.toCodon \(3 problems\): data\.codonId: .*; data\.checkpointType: .*; data\.autoRestart: expected a boolean, got a string$/,
    );
    expect(many).not.toMatch(/✖|Invalid input/);
  });

  it('hands on a command of a known type with its payload unchecked: the gate comes first', () => {
    const parsed = parseFrame('{"id":"x","type":"codon.start","data":{"codonId":5}}', false, LIMIT);
    expect(parsed).toEqual({
      ok: true,
      kind: 'command',
      type: 'codon.start',
      commandId: 'x',
      value: { id: 'x', type: 'codon.start', data: { codonId: 5 } },
    });
  });

  it('refuses binary frames, oversized frames and invalid UTF-8', () => {
    const binary = acceptFrame(Buffer.from('{"id":"1","type":"ping"}'), true, LIMIT);
    expect(binary.ok || binary.problem.code).toBe('INVALID_MESSAGE');
    const big = acceptFrame(Buffer.alloc(LIMIT + 1, 32), false, LIMIT);
    expect(big.ok || big.problem.code).toBe('MESSAGE_TOO_LARGE');
    const badUtf8 = acceptFrame(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), false, LIMIT);
    expect(badUtf8.ok || badUtf8.problem.code).toBe('INVALID_MESSAGE');
  });

  it('accepts commands and applies defaults', () => {
    const start = parse('{"id":"c1","type":"codon.start","data":{"codonId":"a"}}');
    expect(start).toEqual({
      ok: true,
      kind: 'command',
      command: { id: 'c1', type: 'codon.start', data: { codonId: 'a', skipPreCommands: false } },
    });
    const list = parse('{"id":"c2","type":"checkpoint.list"}');
    expect(list.ok && list.kind === 'command' && list.command.data).toEqual({});
    const rollback = parse('{"id":"c3","type":"rollback.toLastSuccess"}');
    expect(rollback.ok && rollback.kind === 'command' && rollback.command.data).toEqual({
      autoRestart: false,
    });
    const hs = parse('{"type":"handshake","data":{"mode":"readonly"}}');
    expect(hs).toEqual({
      ok: true,
      kind: 'handshake',
      handshake: { type: 'handshake', data: { mode: 'readonly', sendPreviousEvents: false } },
    });
  });

  it('never repeats a huge client value whole: long values are cut, long ids are not echoed', () => {
    const huge = 'A'.repeat(200_000);
    const frames = [
      { id: 'e1', type: huge },
      { id: huge, type: huge },
      { id: huge, type: 'ping' },
      { id: 'e2', type: 'codon.start', data: { codonId: 7, [huge]: huge } },
      { id: 'e3', type: 'rollback.toCheckpoint', data: { checkpointSha: huge } },
      { id: 'e4', type: 'rollback.toCodon', data: { codonId: 'a', checkpointType: huge } },
      { type: 'handshake', data: { mode: huge } },
      { id: huge, type: 'handshake', data: { mode: 'readonly' } },
    ];
    for (const frame of frames) {
      const parsed = acceptFrame(JSON.stringify(frame), false, 10 * 1024 * 1024);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) continue;
      expect(parsed.problem.message.length).toBeLessThan(600);
      expect(parsed.problem.commandId === undefined || parsed.problem.commandId.length <= 256).toBe(true);
    }
    const unknown = acceptFrame(JSON.stringify({ id: 'e1', type: huge }), false, 10 * 1024 * 1024);
    expect(unknown.ok || unknown.problem.message).toContain(`"${'A'.repeat(100)}… (199900 more characters)"`);
    const longId = acceptFrame(JSON.stringify({ id: 'i'.repeat(257), type: 'ping' }), false, LIMIT);
    expect(longId.ok || [longId.problem.code, longId.problem.commandId]).toEqual([
      'INVALID_COMMAND',
      undefined,
    ]);
    // A deeply nested value is named by its kind, never serialized back (that overflowed the stack).
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const nested = acceptFrame(
      `{"id":"d","type":"rollback.toCodon","data":{"codonId":"a","checkpointType":${deep}}}`,
      false,
      10 * 1024 * 1024,
    );
    expect(nested.ok || nested.problem.message).toBe(
      'invalid rollback.toCodon: data.checkpointType: expected one of rig-setup, completed, error, skipped, start, end, got an array',
    );
    const maxId = acceptFrame(JSON.stringify({ id: 'i'.repeat(256), type: 'ping' }), false, LIMIT);
    expect(maxId.ok).toBe(true);
  });
});
