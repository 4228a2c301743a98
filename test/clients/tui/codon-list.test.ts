/** What the terminal UI's codon list, codon details and help line show once the store has folded a run's events. */
import { beforeEach, describe, expect, it } from 'vitest';
import { budgetLine } from '../../../src/clients/model/store/budget.ts';
import { orderedCodons, runningCodon } from '../../../src/clients/model/store/codons.ts';
import { foldEvents } from '../../../src/clients/model/store/fold-event.ts';
import { reduceRun } from '../../../src/clients/model/store/reduce.ts';
import { initialRunState, type RunState } from '../../../src/clients/model/store/run-state.ts';
import {
  nextCodonId,
  passedOverCodons,
  rollbackTargets,
  runWord,
} from '../../../src/clients/model/store/selectors.ts';
import { currentRunCost, describeCost } from '../../../src/clients/model/store/totals.ts';
import { codonDetailLines } from '../../../src/clients/tui/view/content/codon-detail-lines.ts';
import { codonLines } from '../../../src/clients/tui/view/content/codon-lines.ts';
import { helpLines } from '../../../src/clients/tui/view/content/help-lines.ts';
import { helpLine } from '../../../src/clients/tui/view/keymap.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import {
  codonEnd,
  codonStart,
  RUN,
  resetCost,
  rollback,
  runStarted,
  serverTotals,
  transition,
  usage,
} from '../model/helpers/events.ts';
import { ev } from '../model/helpers/fake-client.ts';

const fold = (events: ServerEvent[], state: RunState = initialRunState('ws://x')) =>
  foldEvents(state, events);

beforeEach(() => resetCost());

describe('codon list', () => {
  it('keeps the agent codon.started names (a plan may mix them): the notice and the codon details say it', () => {
    const started = ev('codon.started', {
      codonId: 'test',
      codonName: 'Add a test',
      sessionId: 's',
      startTime: new Date().toISOString(),
      agent: 'codex',
    });
    const s = fold([...codonStart('test', 2), started]);
    expect(s.codons.test?.agent).toBe('codex');
    expect(s.notice).toEqual({ text: 'running test: Add a test (codex)', tone: 'accent' });
    // A redo's transition alone keeps it.
    const again = fold([...codonEnd('test', 'failed'), ...codonStart('test', 2)], s);
    expect(again.codons.test?.agent).toBe('codex');
    const details = codonDetailLines(s.codons.test, 'test', {
      plan: undefined,
      readonly: true,
      width: 80,
      now: 0,
    });
    expect(details.map((l) => l.text)).toContain('  agent        codex');
    // In a plan that mixes agents, the codon list names each at the end of the codon's label, the name
    // cut before it (trial 18b L7); with one agent for all, it names none.
    const alone = codonLines(s.codons, s.run.idle, 60, 0, true).lines[0]?.text ?? '';
    expect(alone).toMatch(/^▶ test Add a test +running/);
    const codons = {
      ...s.codons,
      first: { ...s.codons.test!, codonId: 'first', codonName: 'First', agent: 'builtin' },
    };
    const line = (width: number) =>
      codonLines(codons, s.run.idle, width, 0, true).lines.find((l) => l.text.includes('test'))?.text ?? '';
    expect(line(60)).toMatch(/^▶ test Add a test +codex +running/);
    expect(line(46)).toMatch(/^▶ test Add a … codex running/);
  });
});

describe('estimated costs (trial 18 M1)', () => {
  /** A Codex codon's priced response: token.usage costEstimated, the cost, the server's marked totals. */
  const priced = (codonId: string, cost: number, runCost: number): ServerEvent[] => [
    ev('token.usage', {
      codonId,
      inputTokens: 30_132,
      outputTokens: 34,
      cacheCreationTokens: 0,
      cacheReadTokens: 0,
      totalCost: cost,
      costEstimated: true,
    }),
    ev('state.transition', {
      transitionType: 'CostsIncremented',
      runId: RUN,
      codonId,
      transition: { type: 'CostsIncremented', data: { runId: RUN, codonId, amount: cost, source: 'agent' } },
      resultingState: {
        currentRunId: RUN,
        runCount: 1,
        totalCost: runCost,
        currentRunCost: runCost,
        totalCostEstimated: true,
        currentRunCostEstimated: true,
      },
    }),
  ];

  it('marks the codon, its line, details and end, and the header total ~; a codon that reports its cost is not', () => {
    const s = fold([
      ...runStarted(),
      ...codonStart('cc', 0),
      ...usage('cc', 10, 1, 0.01),
      ...codonEnd('cc', 'completed', 0.01),
      ...codonStart('cx', 1),
      ...priced('cx', 0.0604, 0.0704),
    ]);
    expect(s.codons.cc?.costEstimated).toBeFalsy();
    expect(s.codons.cx).toMatchObject({ cost: 0.0604, costEstimated: true });
    expect(describeCost(s.run)).toBe('~$0.0704');
    const lines = codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines.map((l) => l.text);
    expect(lines.find((l) => l.includes(' cc '))).toContain(' $0.0100 ');
    expect(lines.find((l) => l.includes(' cx '))).toContain(' ~$0.0604 ');
    const details = codonDetailLines(s.codons.cx, 'cx', {
      plan: undefined,
      readonly: true,
      width: 100,
      now: 0,
    });
    expect(details.map((l) => l.text)).toContainEqual(
      expect.stringMatching(/cost +~\$0\.0604 \(estimated: /),
    );
    expect(helpLines(true, 'ws://x').map((l) => l.text)).toContainEqual(
      expect.stringContaining('~ marks an estimate'),
    );
    const ended = fold(
      [
        ev('codon.completed', {
          codonId: 'cx',
          success: true,
          cost: 0.0604,
          costEstimated: true,
          duration: 500,
          exitStatus: { type: 'success' },
        }),
      ],
      s,
    );
    expect(ended.activity.at(-1)?.kind === 'codon' && ended.activity.at(-1)).toMatchObject({
      text: '■ cx completed in 500ms, ~$0.0604',
    });
    // A new attempt costs nothing yet: no mark until it spends.
    const again = fold(codonStart('cx', 1), ended);
    expect(again.codons.cx?.costEstimated).toBeFalsy();
  });

  it('takes the marks of a state.snapshot (codons, total) and of a budget status', () => {
    const s = fold([
      ev('state.snapshot', {
        completedCodons: [
          { codonId: 'gm', codonName: 'gm', status: 'completed', cost: 0.03, costEstimated: true },
        ],
        fileTree: [],
        totalCost: 0.03,
        totalCostEstimated: true,
        totalTime: 0,
        isRollingBack: false,
        budgets: [
          {
            scope: 'plan',
            id: 'p',
            limits: { maxCostUsd: 0.1 },
            spent: { costUsd: 0.03, costEstimated: true, durationMs: 0, outputTokens: 0 },
            state: 'ok',
            ticking: false,
          },
        ],
      }),
    ]);
    expect(s.codons.gm).toMatchObject({ costEstimated: true });
    expect(describeCost(s.run)).toBe('~$0.0300');
    expect(budgetLine(s.run, 0, Date.now())?.text).toBe('budget ~$0.03 / $0.10');
  });
});

describe('after a rollback', () => {
  // one, two, three completed, then rollback.toCodon {two, start}: the checkpoint before two is one's
  // completed one, so the server reports the rollback as to one (completed), undoing two and three.
  const threeDone = () =>
    fold([
      ...runStarted(),
      ...['one', 'two', 'three'].flatMap((id, i) => [
        ...codonStart(id, i),
        ...usage(id, 100, 10, 0.01 * (i + 1)),
        ...codonEnd(id, 'completed', 0.01 * (i + 1), 1_000 * (i + 1)),
      ]),
      ev('server.idle', { reason: 'all-codons-completed', message: 'all 3 codons have run' }),
    ]);
  const toTwoStart = (autoRestart = false) =>
    rollback({
      toCodon: 'one',
      checkpointType: 'completed',
      undo: ['two', 'three'],
      toRun: 'run-2',
      autoRestart,
    });
  /** The run's history first (the helpers keep the server's totals in order), then `after` on top. */
  const afterThree = (after: () => ServerEvent[]) => {
    const before = threeDone();
    return fold(after(), before);
  };
  const statuses = (s: RunState) => orderedCodons(s.codons).map((c) => `${c.codonId}:${c.status}`);

  it('shows the codons it undid as pending, without the undone cost and time; earlier ones stay done', () => {
    const s = afterThree(() => toTwoStart());
    expect(statuses(s)).toEqual(['one:completed', 'two:pending', 'three:pending']);
    expect(s.codons.one).toMatchObject({ cost: 0.01, duration: 1_000, attempts: 1 });
    for (const id of ['two', 'three']) {
      expect(s.codons[id]).toMatchObject({ status: 'pending', cost: 0, attempts: 0, note: 'undone' });
      expect(s.codons[id]?.duration).toBeUndefined();
      expect(s.codons[id]?.startTime).toBeUndefined();
    }
    // The lines say so too: no cost, no time, and nothing left of the undone attempts.
    const lines = codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines;
    expect(lines.map((l) => l.text.replace(/\s+/g, ' ').trim())).toEqual([
      '✓ one Codon one completed $0.0100 1.0s',
      '· two Codon two undone $0',
      '· three Codon three undone $0',
    ]);
    expect(lines.slice(1).every((l) => l.dim)).toBe(true);
    // Only codons of the new run's lineage are rollback targets.
    expect(
      rollbackTargets(s.codons, s.checkpoints, s.run.runId)
        .filter((t) => t.kind === 'codon')
        .map((t) => t.label),
    ).toEqual(['start of one (Codon one)', 'end of one (completed)']);
  });

  it("keeps the header's cost to the server's figures: the new run's, and every run's", () => {
    const s = afterThree(() => toTwoStart());
    const server = serverTotals();
    expect(server.runCost).toBe(0);
    expect(s.run).toMatchObject({ runId: 'run-2', runCount: 2, runCost: 0, totalCost: server.totalCost });
    expect(describeCost(s.run)).toBe('$0 (all runs $0.0600)');
    // The run's own cost is 0, not the total (the web dashboard's header, overview and fleet).
    expect(currentRunCost(s.run)).toBe(0);
    expect(currentRunCost({ runCount: 1, runCost: 0, totalCost: 0.06 })).toBe(0.06);
    expect(s.run.workTime).toBe(0);
    // The idle of the old run spoke of it: the new run is not "plan done".
    expect(runWord(s.run)).toBe('run running');
  });

  it('a run that ended, then a server that idles on it (it began no run): the idle is the news, not the old ending (trial 30)', () => {
    const ended = fold([
      ...runStarted(),
      ...codonStart('one', 1),
      ...usage('one', 100, 10, 0.02),
      ...codonEnd('one', 'completed'),
      transition('RunCompleted', { endedAt: '2026-11-29T10:00:00.000Z' }),
    ]);
    expect(runWord(ended.run)).toBe('run completed');
    const idle = fold(
      [
        ev(
          'server.idle',
          {
            reason: 'startup',
            message: 'idle; codon.next starts two',
            nextCodonId: 'two',
            lastEnded: { codonId: 'one', status: 'completed' },
          },
          '2026-11-29T10:05:00.000Z',
        ),
      ],
      ended,
    );
    expect(runWord(idle.run)).toBe('idle · next: two');
    expect(currentRunCost(idle.run)).toBe(0.02);
  });

  it('with autoRestart, the first undone codon runs again and the rest stay pending', () => {
    const s = afterThree(() => [...toTwoStart(true), ...codonStart('two', 1), ...usage('two', 50, 5, 0.005)]);
    expect(statuses(s)).toEqual(['one:completed', 'two:running', 'three:pending']);
    expect(s.codons.two).toMatchObject({ attempts: 1, cost: 0.005 });
    expect(s.codons.two?.note).toBeUndefined();
    expect(s.codons.three).toMatchObject({ cost: 0, attempts: 0, note: 'undone' });
    expect(s.run).toMatchObject({ runCost: 0.005, totalCost: serverTotals().totalCost });
    expect(runningCodon(s.codons)?.codonId).toBe('two');
  });

  it('names the codon the server says runs next, in the header, the codon list and the help line', () => {
    const s = afterThree(() => [
      ...toTwoStart(),
      ev('server.idle', {
        reason: 'codon-completed',
        message: 'idle; codon.next starts two',
        nextCodonId: 'two',
        lastEnded: { codonId: 'one', status: 'completed' },
      }),
    ]);
    expect(nextCodonId(s.run)).toBe('two');
    expect(runWord(s.run)).toBe('idle · next: two');
    expect(helpLine(false, 100, nextCodonId(s.run))).toMatch(/^READ-WRITE {2}n next: two {2}s skip/);
    const lines = codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines;
    expect(lines[1]).toMatchObject({ tone: 'accent', bold: true });
    expect(lines[1]?.text).toMatch(/^▷ two Codon two\s+next\s+\$0/);
    expect(lines[2]?.text).toMatch(/^· three Codon three\s+undone/);
  });
});

describe('idle', () => {
  it('falls back to the plain idle word and keys when the server does not name the next codon', () => {
    const s = fold([ev('server.idle', { reason: 'codon-completed', message: 'idle' })]);
    expect(nextCodonId(s.run)).toBeUndefined();
    expect(runWord(s.run)).toBe('idle');
    expect(helpLine(false, 100, nextCodonId(s.run))).toMatch(/^READ-WRITE {2}n next {2}s skip/);
    expect(codonLines({}, s.run.idle, 60, 0).lines[0]?.text).toBe('No codon has started yet.');
  });

  it('says plan done when every codon has run, and nothing is next', () => {
    const s = fold([ev('server.idle', { reason: 'all-codons-completed', message: 'all 3 codons have run' })]);
    expect(runWord(s.run)).toBe('plan done');
  });
});

describe('a loop until verify whose gates passed', () => {
  // The plan: build, then polish (until: verify, 3 iterations), then ship.
  const plan = {
    name: 'p',
    codons: ['build', 'sign#0', 'sign#1', 'sign#2', 'ship'].map((codonId, index) => ({
      codonId,
      codonName: codonId,
      index,
    })),
  };
  const seeded = () => {
    const s = initialRunState('ws://x');
    return { ...s, connection: { ...s.connection, plan } };
  };
  const history = (events: ServerEvent[]) => reduceRun(seeded(), { kind: 'history', events });
  const sign0Passed = () => [
    ...runStarted(),
    ...codonStart('build', 0, 'build'),
    ...codonEnd('build', 'completed'),
    ...codonStart('sign#0', 1, 'sign#0'),
    ...codonEnd('sign#0', 'completed'),
  ];
  const text = (s: RunState) =>
    codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines.map((l) =>
      l.text.replace(/\s+/g, ' ').trim(),
    );

  it('shows the iterations passed over as such, not pending, when the next codon is past them', () => {
    const s = history([
      ...sign0Passed(),
      ev('server.idle', {
        reason: 'codon-completed',
        message: 'idle; codon.next starts ship',
        nextCodonId: 'ship',
        lastEnded: { codonId: 'sign#0', status: 'completed' },
      }),
    ]);
    const lines = codonLines(s.codons, s.run.idle, 60, Date.now(), true).lines;
    expect(text(s).slice(2)).toEqual([
      '· sign#1 passed over $0',
      '· sign#2 passed over $0',
      '▷ ship next $0',
    ]);
    expect(lines[2]?.dim && lines[3]?.dim).toBe(true);
  });

  it('and once every codon is done', () => {
    const s = history([
      ...sign0Passed(),
      ...codonStart('ship', 4, 'ship'),
      ...codonEnd('ship', 'completed'),
      ev('server.idle', { reason: 'all-codons-completed', message: 'all 5 codons of plan "p" are done' }),
    ]);
    expect(text(s).slice(2, 4)).toEqual(['· sign#1 passed over $0', '· sign#2 passed over $0']);
    // The same set for the web overview.
    expect([...passedOverCodons(orderedCodons(s.codons), s.run.idle)]).toEqual(['sign#1', 'sign#2']);
  });
});
