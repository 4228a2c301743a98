import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it } from 'vitest';
import { runWord } from '../../../src/clients/model/store/selectors.ts';
import { Overview } from '../../../src/clients/web/components/overview.tsx';
import { UsageWaitBanner } from '../../../src/clients/web/components/usage-wait-banner.tsx';
import { initialDashboard, reduceDashboard } from '../../../src/clients/web/model/dashboard.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { codonStart, resetCost, runStarted, transition } from '../model/helpers/events.ts';
import { ev } from '../model/helpers/fake-client.ts';

/** The dashboard during a usage-limit wait: the banner under the header, the codon's row, the activity. */

beforeEach(() => resetCost());

// Local times: the clocks read the same in every time zone.
const local = (h: number, m = 0, s = 0) => new Date(2026, 10, 30, h, m, s);
const NOW = local(12, 46, 40).getTime();
const RESET = local(15).toISOString();

function waiting(): ServerEvent[] {
  const at = new Date(NOW).toISOString();
  const failureReason = { type: 'usage-limit' as const, retriable: true, message: 'limit', resetsAt: RESET };
  return [
    ...runStarted(),
    ...codonStart('one', 0),
    transition('CodonTransitioned', {
      codonId: 'one',
      from: 'running',
      to: 'failed',
      at,
      duration: 900,
      failureReason,
    }),
    ev(
      'codon.completed',
      {
        codonId: 'one',
        success: false,
        cost: 0.01,
        duration: 900,
        exitStatus: { type: 'error', code: 1 },
        failureReason,
      },
      at,
    ),
    ev(
      'usageLimit.waiting',
      {
        codonId: 'one',
        agent: 'codex',
        resetsAt: RESET,
        until: local(15, 1).toISOString(),
        waitMs: 8_060_000,
        detail: "You've hit your usage limit.",
        message: 'one waits for the usage limit of codex to reset',
      },
      at,
    ),
  ];
}

const fold = (events: ServerEvent[], state = initialDashboard('ws://x')) =>
  reduceDashboard(state, { kind: 'events', events });

describe('the dashboard during a usage-limit wait', () => {
  it('the banner says the reset and the time left, and how to start the codon now', () => {
    const s = fold(waiting());
    const wait = s.run.run.usageWait;
    expect(wait).toBeDefined();
    const html = renderToStaticMarkup(
      React.createElement(UsageWaitBanner, { wait: wait!, now: NOW, canControl: true }),
    );
    expect(html).toContain('class="usage-wait"');
    expect(html).toContain(
      'waiting for the usage limit of codex to reset at 15:00; starts again at 15:01 (in 2 h 14 m)',
    );
    expect(html).toContain('n (next) starts one now');
    // A read-only page is not told of a key it does not have.
    const readonly = renderToStaticMarkup(
      React.createElement(UsageWaitBanner, {
        wait: wait!,
        now: local(15, 0, 30).getTime(),
        canControl: false,
      }),
    );
    expect(readonly).toContain('to reset at 15:00; starts again at 15:01 (in 30 s)');
    expect(readonly).not.toContain('next');
  });

  it("the overview says the run waits, and the codon's row waits rather than failed", () => {
    const s = fold(waiting());
    expect(runWord(s.run.run)).toBe('waiting for usage limit');
    const html = renderToStaticMarkup(
      React.createElement(Overview, { state: s, selected: undefined, onSelect: () => {}, now: NOW }),
    );
    expect(html).toMatch(/data-testid="run-state">waiting for usage limit</);
    // Amber, the colour of every wait (styles.css --st-waiting).
    expect(html).toMatch(
      /data-testid="codon-status"><span class="pill plain st-waiting">waiting for usage limit</,
    );
    // Once the codon starts again: running, nothing waits.
    const again = fold(codonStart('one', 0), s);
    expect(again.run.run.usageWait).toBeUndefined();
    const after = renderToStaticMarkup(
      React.createElement(Overview, { state: again, selected: undefined, onSelect: () => {}, now: NOW }),
    );
    expect(after).not.toContain('waiting for usage limit');
  });

  it('the activity lists the failure with its reset, the wait and its end', () => {
    const s = fold([
      ...waiting(),
      ev('usageLimit.ended', { codonId: 'one', how: 'reset', message: 'the reset came' }),
    ]);
    const notes = s.log.rows
      .filter((r) => r.kind === 'note' || r.kind === 'codon')
      .map((r) => [r.text, r.tone]);
    expect(notes).toEqual([
      ['▶ one: Codon one', 'accent'],
      ['■ one failed in 900 ms, $0.0100: usage limit (resets 15:00) limit', 'bad'],
      [
        "◷ one waits for the usage limit of codex to reset at 15:00, then starts again at 15:01: You've hit your usage limit.",
        'warn',
      ],
      ['▷ one: the usage-limit wait ended (its time came)', 'info'],
    ]);
  });
});
