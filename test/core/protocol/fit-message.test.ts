import { describe, expect, it } from 'vitest';
import { CodonMessageRequest, fitMessage, MESSAGE_MAX_BYTES } from '../../../src/core/protocol/index.ts';

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe('fitMessage: what the TUI and the dashboard keep of typed text (trial 17 M1)', () => {
  it('keeps a message under the limit whole, 32 KiB of ASCII included', () => {
    const text = 'a'.repeat(MESSAGE_MAX_BYTES);
    expect(fitMessage(text)).toBe(text);
    expect(CodonMessageRequest.safeParse({ text }).success).toBe(true);
  });

  it('cuts a longer one between characters, to a message the server takes', () => {
    const text = `${'a'.repeat(MESSAGE_MAX_BYTES - 2)}😀b`;
    const kept = fitMessage(text);
    expect(kept).toBe('a'.repeat(MESSAGE_MAX_BYTES - 2));
    expect(bytes(kept)).toBeLessThanOrEqual(MESSAGE_MAX_BYTES);
    const emoji = fitMessage('😀'.repeat(10_000));
    expect(emoji).toBe('😀'.repeat(MESSAGE_MAX_BYTES / 4));
    expect(CodonMessageRequest.safeParse({ text: emoji }).success).toBe(true);
  });
});
