import { describe, expect, it, vi } from 'vitest';
import { MemoryJournal } from '../../../src/execution/journal/memory-journal.ts';
import { type HistorySink, streamHistory } from '../../../src/host/server/history-stream.ts';

type Frame = { type: string; data: { events: Array<{ id: string }>; hasMore: boolean } };

/** A sink that records what it was sent and whose socket takes everything at once. */
function recordingSession() {
  const frames: Frame[] = [];
  const session: HistorySink = {
    closing: false,
    async sentFrame(parts, bytes) {
      const text = parts.join('');
      expect(Buffer.byteLength(text)).toBe(bytes);
      frames.push(JSON.parse(text));
    },
  };
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

  it('keeps at most two batches untaken by the socket, and reads nothing at all for a closing client', async () => {
    let reads = 0;
    const counting = new (class extends MemoryJournal {
      override readBatch(...args: Parameters<MemoryJournal['readBatch']>) {
        reads += 1;
        return super.readBatch(...args);
      }
    })();
    counting.append(Array.from({ length: 50 }, (_, i) => entry(i)));
    const frames: Frame[] = [];
    const taken: Array<() => void> = [];
    let closing = false;
    const sink: HistorySink = {
      get closing() {
        return closing;
      },
      sentFrame: (parts) => {
        frames.push(JSON.parse(parts.join('')));
        return new Promise<void>((take) => taken.push(take));
      },
    };
    const sending = streamHistory(counting, sink, { maxEvents: 10, maxBytes: 5_000 });
    // Two batches go out; the third waits until the socket has taken the first.
    await vi.waitFor(() => expect([reads, frames.length]).toEqual([2, 2]));
    await new Promise((r) => setTimeout(r, 20));
    expect([reads, frames.length]).toEqual([2, 2]);
    taken.shift()?.();
    await vi.waitFor(() => expect([reads, frames.length]).toEqual([3, 3]));
    // Taking the third before the second changes nothing: the second is still untaken.
    taken.splice(1, 1)[0]?.();
    await new Promise((r) => setTimeout(r, 20));
    expect([reads, frames.length]).toEqual([3, 3]);
    // The client goes away while the stream waits: no further read, no further send.
    closing = true;
    taken.shift()?.();
    await sending;
    expect([reads, frames.length]).toEqual([3, 3]);
  });
});
