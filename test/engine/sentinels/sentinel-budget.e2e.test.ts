import { afterEach, describe, expect, it } from 'vitest';
import type { SpendGate } from '../../../src/llm/spend/spend-gate.ts';
import { startHarness, stopHarnesses, toolEvents } from './helpers.ts';

afterEach(stopHarnesses);

/**
 * Without the proxy, Ribosome checks a sentinel's call against the budget itself before making it
 * (docs/unattended.md#budgets): capped to what the budget can pay, or not made at all.
 */

const plan = `name: t
codons:
  - id: build
    prompt: Build it.
    sentinels:
      - id: watch
        model: claude-haiku-4-5
        maxTokens: 8000
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [assistant.action] }
`;

/** A budget with `room` USD left; what it was asked to hold and what it refused. */
function budget(room: number) {
  const held: number[] = [];
  const refused: Array<{ least: number; codonId: string | undefined }> = [];
  const gate: SpendGate = {
    room: () => room - held.reduce((a, b) => a + b, 0),
    hold: (usd) => {
      held.push(usd);
      return { settle: () => {} };
    },
    refuse: (least, codonId) => {
      refused.push({ least, codonId });
      return 'codon build budget exhausted';
    },
  };
  return { gate, held, refused };
}

async function oneTrigger(room: number) {
  const b = budget(room);
  const h = await startHarness({
    plan,
    script: {
      tracks: [
        {
          name: 'watch',
          match: { header: { 'x-ribosome-sentinel': 'watch' } },
          whenExhausted: { content: [{ text: 'ok' }] },
        },
      ],
    },
    hooks: { spendGate: () => b.gate },
  });
  const codon = h.codon('build');
  await h.hooks.beforeAgent(codon, 'run-1');
  const [call] = toolEvents('build', 1);
  await h.publish(call.type, call.data);
  await h.hooks.afterAgent(codon, 'run-1');
  return { h, ...b };
}

/** max_tokens of each call the provider received. */
const maxTokensSent = (h: Awaited<ReturnType<typeof oneTrigger>>['h']) =>
  h.provider.requests.map((r) => (r.body as { max_tokens?: number }).max_tokens);

describe('sentinel calls under a budget (no proxy)', () => {
  it('a call that fits goes as configured', async () => {
    const { h, refused } = await oneTrigger(1);
    expect(maxTokensSent(h)).toEqual([8000]);
    expect(refused).toEqual([]);
  });

  it('a call the budget pays for only with fewer output tokens goes with its max_tokens lowered', async () => {
    // Haiku 4.5: $5 per million output tokens; 8,000 of them ($0.04) do not fit in $0.02, beside an
    // input bound under a cent.
    const { h, held } = await oneTrigger(0.02);
    const [sent] = maxTokensSent(h);
    expect(sent).toBeGreaterThanOrEqual(1024);
    expect(sent).toBeLessThan(8000);
    expect(held[0]).toBeLessThanOrEqual(0.02);
  });

  it('a call the budget cannot pay for is not made, and the codon is stopped for it', async () => {
    const { h, refused } = await oneTrigger(0.001);
    expect(h.requests('watch')).toEqual([]);
    expect(refused).toEqual([{ least: expect.any(Number), codonId: 'build' }]);
    expect(h.of('sentinel.error').map((e) => e.data.message)).toEqual([
      'not called: codon build budget exhausted',
    ]);
  });
});
