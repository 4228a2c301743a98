import { describe, expect, it } from 'vitest';
import {
  CodonMessageRequest,
  fitMessage,
  MESSAGE_MAX_BYTES,
  REVIEW_NOTE_MAX_BYTES,
  REVIEW_TEXT_MAX_BYTES,
  ReviewCommentRequest,
} from '../../../src/core/protocol/index.ts';
import { fitText, sizeNearLimit } from '../../../src/core/protocol/message-size.ts';

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

describe('a review comment box and its note (issue 35, trial B: the box had no cap of its own)', () => {
  it('keeps at most what review.comment takes, cut between characters', () => {
    const text = `${'a'.repeat(REVIEW_TEXT_MAX_BYTES - 1)}é`;
    const kept = fitText(text, REVIEW_TEXT_MAX_BYTES);
    expect(kept).toBe('a'.repeat(REVIEW_TEXT_MAX_BYTES - 1));
    expect(
      ReviewCommentRequest.safeParse({
        codonId: 'two',
        file: 'a.ts',
        lines: { start: 1, end: 1 },
        text: kept,
      }).success,
    ).toBe(true);
    expect(fitText('é'.repeat(REVIEW_NOTE_MAX_BYTES), REVIEW_NOTE_MAX_BYTES)).toBe(
      'é'.repeat(REVIEW_NOTE_MAX_BYTES / 2),
    );
  });

  it('says how much of the limit is used past three quarters of it, in KiB', () => {
    expect(sizeNearLimit('a'.repeat(12 * 1024), REVIEW_TEXT_MAX_BYTES)).toBeUndefined();
    expect(sizeNearLimit('a'.repeat(12 * 1024 + 1), REVIEW_TEXT_MAX_BYTES)).toBe('12 of 16 KiB');
    expect(sizeNearLimit('é'.repeat(1600), REVIEW_NOTE_MAX_BYTES)).toBe('3.1 of 4 KiB');
    expect(sizeNearLimit('a'.repeat(REVIEW_TEXT_MAX_BYTES), REVIEW_TEXT_MAX_BYTES)).toBe('16 of 16 KiB');
  });
});
