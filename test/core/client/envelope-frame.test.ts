import { describe, expect, it } from 'vitest';
import { envelopeFrames } from '../../../src/core/client/envelope-frame.ts';
import { EVENT_TYPES } from '../../../src/core/protocol/index.ts';

const at = '2026-01-01T00:00:00.000Z';
const event = (type: string, data: unknown) => ({ id: 'e1', timestamp: at, type, data });

describe("the browser client's frame check (no zod)", () => {
  it('hands on every known event type with an envelope', () => {
    for (const type of EVENT_TYPES) {
      const data = type === 'history.batch' ? { events: [], hasMore: false } : {};
      expect(envelopeFrames.frame(event(type, data))).toEqual({ ok: true, event: event(type, data) });
    }
  });

  it('refuses a frame that is no event, saying what is wrong', () => {
    const refused = (raw: unknown) => {
      const parsed = envelopeFrames.frame(raw);
      return parsed.ok ? 'taken' : parsed.error;
    };
    expect(refused([1, 2])).toBe('not a server event: a frame must be an object, not array');
    expect(refused(null)).toBe('not a server event: a frame must be an object, not null');
    expect(refused({ timestamp: at, type: 'info', data: {} })).toBe(
      'not a server event: its id must be a string, not undefined',
    );
    expect(refused({ id: 'x', timestamp: 5, type: 'info', data: {} })).toBe(
      'not a server event: its timestamp must be a string, not number',
    );
    expect(refused(event('codon.exploded', {}))).toBe('unknown event type "codon.exploded"');
    expect(refused(event('__proto__', {}))).toBe('unknown event type "__proto__"');
    expect(refused(event('info', 'hello'))).toBe('info: its data must be an object, not string');
    expect(refused(event('history.batch', { events: {}, hasMore: false }))).toMatch(
      /^history\.batch: its data must hold events/,
    );
    expect(refused(event('history.batch', { events: [] }))).toMatch(/^history\.batch: /);
  });

  it("checks a batch's events one by one (each as a frame)", () => {
    expect(envelopeFrames.event(event('info', { message: 'x' })).ok).toBe(true);
    expect(envelopeFrames.event({ id: 'x' })).toEqual({
      ok: false,
      error: 'not a server event: its timestamp must be a string, not undefined',
    });
  });
});
