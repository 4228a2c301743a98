import { describe, expect, it } from 'vitest';
import { DEFAULT_MESSAGE_QUEUE, queueRefusal } from '../../src/engine/message-queue.ts';

describe('queueRefusal (what may wait for the running agent)', () => {
  const limits = DEFAULT_MESSAGE_QUEUE;
  it.each([
    { count: 0, bytes: 0, size: 32 * 1024, refused: false },
    { count: 99, bytes: 99_000, size: 1000, refused: false },
    // The hundred-and-first message.
    { count: 100, bytes: 100_000, size: 1, refused: true },
    // Exactly 1 MiB waits; a byte more does not.
    { count: 31, bytes: 1024 * 1024 - 32 * 1024, size: 32 * 1024, refused: false },
    { count: 31, bytes: 1024 * 1024 - 32 * 1024 + 1, size: 32 * 1024, refused: true },
  ])(
    '$count messages of $bytes bytes waiting, one of $size more: refused $refused',
    ({ count, bytes, size, refused }) => {
      expect(queueRefusal('two', { count, bytes }, size, limits) !== undefined).toBe(refused);
    },
  );

  it('says which codon, which bound and its config key, and what to do', () => {
    expect(queueRefusal('two', { count: 100, bytes: 500 }, 10, limits)).toBe(
      'the message is not sent: the agent of codon two has not taken up the 100 messages (at most 100, limits.messageQueueMessages) waiting for it; send it once the agent has read them',
    );
    expect(queueRefusal('two', { count: 3, bytes: 1_048_000 }, 1000, limits)).toBe(
      'the message is not sent: the agent of codon two has not taken up the 3 messages of 1048000 bytes; this one of 1000 would pass 1048576 (limits.messageQueueBytes) waiting for it; send it once the agent has read them',
    );
  });
});
