import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from '../../src/llm/sse-parser.ts';

function parseInChunks(text: string, sizes: number[]): SseEvent[] {
  const parser = createSseParser();
  const out: SseEvent[] = [];
  let at = 0;
  let i = 0;
  while (at < text.length) {
    const size = sizes[i++ % sizes.length] ?? 1;
    out.push(...parser.feed(text.slice(at, at + size)));
    at += size;
  }
  return out;
}

const STREAM =
  'event: message_start\ndata: {"type":"message_start"}\n\n' +
  ': this is a comment\n' +
  'event: ping\r\ndata: {"type": "ping"}\r\n\r\n' +
  'data: first line\ndata: second line\n\n' +
  'event: content_block_delta\rdata: {"a":1}\r\r' +
  'id: 7\nretry: 1500\nevent: x\ndata:no-space\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"type":"message_start"}' },
  { event: 'ping', data: '{"type": "ping"}' },
  { event: 'message', data: 'first line\nsecond line' },
  { event: 'content_block_delta', data: '{"a":1}' },
  { event: 'x', data: 'no-space', id: '7', retry: 1500 },
];

describe('createSseParser', () => {
  it('parses a whole stream: events, comments, CRLF/CR/LF line ends, multi-line data, id and retry', () => {
    expect(parseInChunks(STREAM, [STREAM.length])).toEqual(EXPECTED);
  });

  it('gives the same events whatever the chunk boundaries', () => {
    for (const sizes of [[1], [2], [3, 1], [5, 7, 11], [13]]) {
      expect(parseInChunks(STREAM, sizes)).toEqual(EXPECTED);
    }
  });

  it('treats a \\r at the end of a chunk followed by \\n in the next as one line end', () => {
    const parser = createSseParser();
    expect(parser.feed('data: a\r')).toEqual([]);
    expect(parser.feed('\n\r')).toEqual([{ event: 'message', data: 'a' }]);
    expect(parser.feed('\ndata: b\n\n')).toEqual([{ event: 'message', data: 'b' }]);
  });

  it('dispatches nothing for blocks without data (comments, bare event names)', () => {
    const parser = createSseParser();
    expect(parser.feed(': ping\n\nevent: lonely\n\n')).toEqual([]);
  });

  it('holds an unterminated event back: a cut-off stream yields no half event', () => {
    const parser = createSseParser();
    expect(parser.feed('event: message_stop\ndata: {"type":"message_st')).toEqual([]);
  });

  it('keeps a UTF-8 payload intact', () => {
    expect(parseInChunks('data: héllo → 世界\n\n', [1])).toEqual([
      { event: 'message', data: 'héllo → 世界' },
    ]);
  });
});
