import { describe, expect, it } from 'vitest';
import {
  CHUNK_CHARS,
  GateOutput,
  type OutputChunk,
  STREAM_CAP_CHARS,
  TAIL_CHARS,
} from '../../../src/engine/verify/gate-output.ts';

const joined = (chunks: OutputChunk[]) => chunks.map((c) => c.text).join('');

describe("a gate's output on its way to the journal", () => {
  it('holds small output until flushed, then streams it as one chunk', () => {
    const out = new GateOutput();
    expect(out.push('stdout', 'one\n')).toEqual([]);
    expect(out.push('stdout', 'two\n')).toEqual([]);
    expect(out.flush()).toEqual([{ stream: 'stdout', text: 'one\ntwo\n' }]);
    expect(out.flush()).toEqual([]);
  });

  it('keeps the order of arrival across stdout and stderr', () => {
    const out = new GateOutput();
    const chunks = [
      ...out.push('stdout', 'a'),
      ...out.push('stderr', 'b'),
      ...out.push('stdout', 'c'),
      ...out.flush(),
    ];
    expect(chunks).toEqual([
      { stream: 'stdout', text: 'a' },
      { stream: 'stderr', text: 'b' },
      { stream: 'stdout', text: 'c' },
    ]);
    expect(out.tail).toBe('abc');
  });

  it('cuts long output into chunks of at most CHUNK_CHARS, nothing lost below the cap', () => {
    const out = new GateOutput();
    const text = 'x'.repeat(CHUNK_CHARS * 2 + 10);
    const full = out.push('stdout', text);
    expect(full.map((c) => c.text.length)).toEqual([CHUNK_CHARS, CHUNK_CHARS]);
    const rest = out.flush();
    expect(joined([...full, ...rest])).toBe(text);
  });

  it('streams at most STREAM_CAP_CHARS, says so once, and still keeps the tail', () => {
    const out = new GateOutput();
    const chunks: OutputChunk[] = [];
    for (let i = 0; i < 100; i++)
      chunks.push(...out.push('stdout', `${String(i).padStart(3, '0')}${'y'.repeat(2_000)}\n`));
    chunks.push(...out.flush(), ...out.flush());
    const notices = chunks.filter((c) => c.text.includes('not streamed'));
    expect(notices).toHaveLength(1);
    const streamed = chunks.filter((c) => !notices.includes(c));
    expect(joined(streamed).length).toBe(STREAM_CAP_CHARS);
    expect(streamed.every((c) => c.text.length <= CHUNK_CHARS)).toBe(true);
    expect(out.total).toBe(100 * 2_004);
    expect(out.tail).toHaveLength(TAIL_CHARS);
    expect(out.tail.endsWith(`099${'y'.repeat(2_000)}\n`)).toBe(true);
  });
});
