import { describe, expect, it } from 'vitest';
import { MemoryJournal } from '../../src/journal/memory-journal.ts';
import type { ClientSession } from '../../src/server/client-session.ts';
import { streamHistory } from '../../src/server/history-stream.ts';

/** A session that records what it was sent and acknowledges each frame at once. */
function recordingSession() {
  const frames: Array<{ type: string; data: { events: Array<{ id: string }>; hasMore: boolean } }> = [];
  const session = {
    send(payload: string, callback?: (error?: Error) => void) {
      frames.push(JSON.parse(payload));
      callback?.();
    },
  } as unknown as ClientSession;
  return { session, frames };
}

const entry = (i: number) => ({
  id: `e${i}`,
  timestamp: 't',
  type: 'info',
  runId: 'r',
  json: JSON.stringify({ id: `e${i}`, timestamp: 't', type: 'info', data: { message: `m${i}` } }),
});

describe('streamHistory', () => {
  it('answers an empty journal with one empty batch whose hasMore is false', async () => {
    const { session, frames } = recordingSession();
    await streamHistory(new MemoryJournal(), session, { maxEvents: 10, maxBytes: 1_000 });
    expect(frames).toEqual([
      expect.objectContaining({ type: 'history.batch', data: { events: [], hasMore: false } }),
    ]);
  });

  it('bounds batches by count and by bytes and ends at the journal as it was when asked', async () => {
    const journal = new MemoryJournal();
    journal.append(Array.from({ length: 25 }, (_, i) => entry(i)));
    const { session, frames } = recordingSession();
    const sending = streamHistory(journal, session, { maxEvents: 10, maxBytes: 1_000_000 });
    // Events journaled after the request arrive live, not in the batches.
    journal.append([entry(99)]);
    await sending;
    expect(frames.map((f) => f.data.events.length)).toEqual([10, 10, 5]);
    expect(frames.map((f) => f.data.hasMore)).toEqual([true, true, false]);
    expect(frames.flatMap((f) => f.data.events.map((e) => e.id))).toEqual(
      Array.from({ length: 25 }, (_, i) => `e${i}`),
    );

    const small = recordingSession();
    const size = Buffer.byteLength(entry(0).json);
    await streamHistory(journal, small.session, { maxEvents: 100, maxBytes: size * 4 });
    expect(small.frames.every((f) => f.data.events.length <= 4)).toBe(true);
    expect(small.frames.at(-1)?.data.hasMore).toBe(false);
  });
});
