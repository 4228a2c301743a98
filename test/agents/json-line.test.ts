import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseJsonLine } from '../../src/agents/json-line.ts';

const Event = z.looseObject({ type: z.literal('ping'), n: z.number().default(0) });

describe('parseJsonLine', () => {
  it("the schema's value (defaults filled in, other fields kept)", () => {
    expect(parseJsonLine('{"type":"ping","extra":true}', Event)).toEqual({
      ok: true,
      value: { type: 'ping', n: 0, extra: true },
    });
  });

  it("a line that is not JSON: 'not JSON', no json", () => {
    const parsed = parseJsonLine('Loaded cached credentials.', Event);
    expect(parsed).toEqual({ ok: false, error: 'not JSON' });
    expect(parsed).not.toHaveProperty('json');
  });

  it("JSON the schema refuses: the schema's complaint, and the JSON for the caller to look at", () => {
    expect(parseJsonLine('{"type":"pong"}', Event)).toEqual({
      ok: false,
      error: expect.stringContaining('type'),
      json: { type: 'pong' },
    });
    expect(parseJsonLine('null', Event)).toMatchObject({ ok: false, json: null });
  });
});
