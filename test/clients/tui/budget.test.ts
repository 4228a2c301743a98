import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { budgetLine } from '../../../src/clients/model/store/budget.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { initialRunState } from '../../../src/clients/model/store/run-state.ts';
import type { BudgetStatus } from '../../../src/core/protocol/index.ts';
import { codonStart, resetCost, runStarted, usage } from '../model/helpers/events.ts';
import { ev, FakeClient } from '../model/helpers/fake-client.ts';
import { hasColour } from './helpers/colour.ts';
import { renderApp } from './helpers/render.ts';

// Ink's colours come from chalk, which only colours when it thinks the terminal can: make it think so.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

const plain = (text: string) => text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');

beforeEach(() => resetCost());
afterEach(() => cleanup());

const plan = (over: Partial<BudgetStatus> = {}): BudgetStatus => ({
  scope: 'plan',
  id: 'p',
  limits: { maxCostUsd: 1, maxDurationMs: 1_800_000 },
  spent: { costUsd: 0.42, durationMs: 62_000, outputTokens: 900 },
  state: 'ok',
  ticking: true,
  ...over,
});

const snapshot = (budgets: BudgetStatus[] | undefined, totalCost: number, at: string) =>
  ev(
    'state.snapshot',
    {
      completedCodons: [],
      fileTree: [],
      totalCost,
      totalTime: 0,
      isRollingBack: false,
      ...(budgets ? { budgets } : {}),
    },
    at,
  );

describe('budget in the store', () => {
  it('shows spend against each limit, live between snapshots for a ticking scope', () => {
    const t = Date.parse('2026-01-01T10:00:00.000Z');
    const s = foldEvents(initialRunState('ws://x'), [
      ...runStarted(),
      ...codonStart('one', 0),
      snapshot([plan()], 0, new Date(t).toISOString()),
      ...usage('one', 100, 10, 0.1),
    ]);
    expect(s.run.budgets?.statuses).toHaveLength(1);
    expect(budgetLine(s.run, 0, t + 3_000)).toEqual({
      text: 'budget $0.52 / $1.00 · 01:05 / 30:00',
      tone: undefined,
    });
  });

  it('counts output tokens when they are limited, and flags a warning and an exceeded scope', () => {
    const at = new Date().toISOString();
    const tokens = plan({
      limits: { maxOutputTokens: 50_000 },
      spent: { costUsd: 0, durationMs: 0, outputTokens: 41_000 },
    });
    const warned = foldEvents(initialRunState('ws://x'), [
      snapshot([{ ...tokens, state: 'warning' }], 0, at),
    ]);
    expect(budgetLine(warned.run, 1_000, Date.parse(at))).toEqual({
      text: 'budget 42k / 50k tok ⚠',
      tone: 'warn',
    });
    const codon: BudgetStatus = {
      scope: 'codon',
      id: 'build',
      limits: { maxCostUsd: 0.5 },
      spent: { costUsd: 0.51, durationMs: 4_000, outputTokens: 0 },
      state: 'exceeded',
      ticking: false,
    };
    const over = foldEvents(initialRunState('ws://x'), [snapshot([plan(), codon], 0, at)]);
    expect(budgetLine(over.run, 0, Date.parse(at))).toEqual({
      text: 'budget $0.42 / $1.00 · 01:02 / 30:00 (codon build exceeded)',
      tone: 'bad',
    });
    // Alone, a codon's budget is shown with its name.
    const alone = foldEvents(initialRunState('ws://x'), [snapshot([codon], 0, at)]);
    expect(budgetLine(alone.run, 0, Date.parse(at))?.text).toBe('budget codon build $0.51 / $0.50 EXCEEDED');
  });

  it('drops the budget when a snapshot has none (a server started without one)', () => {
    const at = new Date().toISOString();
    const s = foldEvents(initialRunState('ws://x'), [snapshot([plan()], 0, at), snapshot(undefined, 0, at)]);
    expect(s.run.budgets).toBeUndefined();
    expect(budgetLine(s.run, 0, Date.parse(at))).toBeUndefined();
  });
});

describe('budget in the header', () => {
  it('shows the plan budget beside the cost, highlighted once a limit is exceeded', async () => {
    const client = new FakeClient({
      history: [
        ...runStarted(),
        ...codonStart('one', 0),
        snapshot(
          [plan({ state: 'warning', spent: { costUsd: 0.84, durationMs: 0, outputTokens: 0 } })],
          0,
          new Date().toISOString(),
        ),
      ],
    });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('budget $0.84 / $1.00');
    const header = () => app.frame().split('\n')[1] ?? '';
    expect(plain(header())).toMatch(/cost \$0 {2}budget \$0\.84 \/ \$1\.00 · 00:0\d \/ 30:00 ⚠ {2}tokens/);
    expect(hasColour(header())).toBe(true);
    client.emit(
      snapshot(
        [
          plan({
            state: 'exceeded',
            ticking: false,
            spent: { costUsd: 1.04, durationMs: 70_000, outputTokens: 0 },
          }),
        ],
        0,
        new Date().toISOString(),
      ),
    );
    await app.waitFor('budget $1.04 / $1.00 · 01:10 / 30:00 EXCEEDED');
  });

  it('shows no budget when none is set, and no colour on that line', async () => {
    const app = renderApp(
      new FakeClient({ history: [...runStarted(), snapshot(undefined, 0, new Date().toISOString())] }),
      {
        width: 160,
      },
    );
    await app.waitFor('tokens');
    const header = app.frame().split('\n')[1] ?? '';
    expect(header).not.toContain('budget');
    expect(hasColour(header)).toBe(false);
  });
});
