import { describe, expect, it } from 'vitest';
import { compileOutputSchema, extractJson } from '../../../src/engine/sentinels/structured-output.ts';

const schema = {
  type: 'object',
  properties: {
    repeating: { type: 'boolean' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    verdict: { type: 'string', enum: ['ok', 'loop'] },
    evidence: { type: 'array', items: { type: 'string' } },
  },
  required: ['repeating', 'verdict'],
};

function validator() {
  const compiled = compileOutputSchema(schema);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.validator;
}

describe('structured output', () => {
  const accepted: Array<[string, string]> = [
    ['plain JSON', '{"repeating": false, "verdict": "ok"}'],
    [
      'with optional fields',
      '{"repeating": true, "verdict": "loop", "confidence": 0.9, "evidence": ["a", "b"]}',
    ],
    ['in a code fence', '```json\n{"repeating": false, "verdict": "ok"}\n```'],
    ['with prose around it', 'Here it is: {"repeating": false, "verdict": "ok"} Hope that helps.'],
    ['extra fields are allowed', '{"repeating": false, "verdict": "ok", "note": "x"}'],
  ];
  it.each(accepted)('accepts %s', (_name, reply) => {
    expect(validator().parse(reply)).toMatchObject({ ok: true, value: { verdict: expect.any(String) } });
  });

  const refused: Array<[string, string, RegExp]> = [
    ['prose only', 'The agent looks fine.', /not a JSON object: The agent looks fine\./],
    ['an empty reply', '', /not a JSON object: \(empty\)/],
    ['a JSON array', '[1, 2]', /not a JSON object/],
    ['a missing required field', '{"repeating": false}', /does not match the output schema.*verdict/],
    ['a value outside the enum', '{"repeating": false, "verdict": "maybe"}', /verdict/],
    ['a wrong type', '{"repeating": "no", "verdict": "ok"}', /repeating/],
    ['a wrong item type', '{"repeating": true, "verdict": "loop", "evidence": [1]}', /evidence/],
    ['a number out of bounds', '{"repeating": true, "verdict": "loop", "confidence": 2}', /confidence/],
  ];
  it.each(refused)('refuses %s', (_name, reply, message) => {
    const result = validator().parse(reply);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it('reports a schema it cannot use', () => {
    const compiled = compileOutputSchema({ type: 'object', properties: { a: { $ref: '#/nowhere' } } });
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.message).toMatch(/output schema cannot be used/);
  });

  it('extracts the object from fences and prose, or nothing', () => {
    expect(extractJson('```\n{"a":1}\n```')).toEqual({ a: 1 });
    expect(extractJson('x {"a":{"b":2}} y')).toEqual({ a: { b: 2 } });
    expect(extractJson('{not json}')).toBeUndefined();
  });
});
