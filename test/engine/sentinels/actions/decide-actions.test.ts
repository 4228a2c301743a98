import { describe, expect, it } from 'vitest';
import {
  compileActions,
  type Decision,
  decideActions,
  freshGuards,
  type RunGuards,
} from '../../../../src/engine/sentinels/actions/decide-actions.ts';
import { SentinelAction } from '../../../../src/plan/index.ts';
import type { ActionContext } from '../../../../src/plan/templates/action-variables.ts';

const REPEATING = [{ path: 'repeating', op: 'equals', value: true }];

function compiled(actions: unknown[], structured = true) {
  const parsed = actions.map((a) => SentinelAction.parse(a));
  const result = compileActions(parsed, structured);
  if (!result.ok) throw new Error(result.message);
  return result.actions;
}

const context = (output: ActionContext['output'], triggerNumber = 1): ActionContext => ({
  output,
  sentinelId: 'loop-detector',
  codon: { id: 'edit', name: 'Edit hello' },
  triggerNumber,
});

/** Feeds outputs one by one (at the given times); returns each output's decisions. */
function feed(
  actions: ReturnType<typeof compiled>,
  outputs: Array<{ output: ActionContext['output']; at?: number }>,
  limits = { maxActions: 3, cooldownMs: 30_000 },
  redos: Record<number, number> = {},
): Decision[][] {
  let guards: RunGuards = freshGuards(actions.length);
  return outputs.map(({ output, at = 0 }, i) => {
    const step = decideActions(actions, context(output, i + 1), guards, limits, at, (k) => redos[k] ?? 0);
    guards = step.guards;
    return step.decisions;
  });
}

const verdict = (repeating: boolean, advice = 'Stop listing the directory.') => ({
  repeating,
  pattern: repeating ? 'ls' : '',
  advice: repeating ? advice : '',
});

describe('decideActions (pure)', () => {
  it('a message with the advice on a repeat, a halt on the third repeat', () => {
    const actions = compiled([
      { when: REPEATING, do: 'message', text: '{{output.advice}} ({{sentinel.id}}, call {{triggerNumber}})' },
      { when: REPEATING, do: 'halt', after: 3 },
    ]);
    const steps = feed(actions, [
      { output: verdict(true), at: 0 },
      { output: verdict(false), at: 1_000 },
      { output: verdict(true), at: 2_000 },
      { output: verdict(true), at: 40_000 },
    ]);
    expect(steps).toEqual([
      [
        {
          index: 0,
          kind: 'message',
          reason: 'repeating equals true',
          text: 'Stop listing the directory. (loop-detector, call 1)',
        },
      ],
      [],
      // The second repeat: the message waits out its cooldown (30 s).
      [],
      // The third: the cooldown is over, so the message goes, then the halt ends the run.
      [
        {
          index: 0,
          kind: 'message',
          reason: 'repeating equals true',
          text: 'Stop listing the directory. (loop-detector, call 4)',
        },
        { index: 1, kind: 'halt', reason: 'repeating equals true (3 times)' },
      ],
    ]);
  });

  it('a halt waits for no cooldown; nothing is taken after a run-ending action', () => {
    const actions = compiled([
      { when: REPEATING, do: 'message', text: 'x' },
      { when: REPEATING, do: 'halt', after: 2 },
      { when: REPEATING, do: 'message', text: 'never' },
    ]);
    const steps = feed(actions, [
      { output: verdict(true), at: 0 },
      { output: verdict(true), at: 10 },
      { output: verdict(true), at: 50_000 },
    ]);
    expect(steps.map((d) => d.map((x) => x.kind))).toEqual([['message'], ['halt'], []]);
  });

  it('maxActions bounds the actions of a run', () => {
    const actions = compiled([{ when: REPEATING, do: 'message', text: 'again' }]);
    const steps = feed(
      actions,
      [0, 1, 2, 3].map((i) => ({ output: verdict(true), at: i * 1000 })),
      { maxActions: 2, cooldownMs: 0 },
    );
    expect(steps.map((d) => d.length)).toEqual([1, 1, 0, 0]);
  });

  it('a redo is taken while it has redos left (max counts over the codon runs)', () => {
    const actions = compiled([{ when: REPEATING, do: 'redo', text: 'Try {{output.pattern}} less.', max: 2 }]);
    expect(feed(actions, [{ output: verdict(true) }], undefined, { 0: 1 })).toEqual([
      [{ index: 0, kind: 'redo', reason: 'repeating equals true', text: 'Try ls less.' }],
    ]);
    expect(feed(actions, [{ output: verdict(true) }], undefined, { 0: 2 })).toEqual([[]]);
  });

  it('text output: a regex; all conditions must hold on structured output', () => {
    const text = compiled([{ when: { regex: '^halt', flags: 'i' }, do: 'halt' }], false);
    expect(feed(text, [{ output: 'OK: $0.61' }, { output: 'HALT: $2.40, mostly uncached input' }])).toEqual([
      [],
      [{ index: 0, kind: 'halt', reason: 'text matches /^halt/i' }],
    ]);
    const both = compiled([
      {
        when: [
          { path: 'repeating', op: 'equals', value: true },
          { path: 'pattern', op: 'contains', value: 'Bash' },
        ],
        do: 'rollback',
      },
    ]);
    expect(feed(both, [{ output: verdict(true) }]).flat()).toEqual([]);
    expect(feed(both, [{ output: { ...verdict(true), pattern: 'the same Bash call' } }]).flat()).toEqual([
      { index: 0, kind: 'rollback', reason: 'repeating equals true and pattern contains "Bash"' },
    ]);
  });

  it('a text the output cannot fill is an error, not an action taken', () => {
    const actions = compiled([
      { when: REPEATING, do: 'message', text: '{{output.hint}}' },
      { when: REPEATING, do: 'message', text: 'plain' },
    ]);
    const [decisions] = feed(actions, [{ output: verdict(true) }], { maxActions: 3, cooldownMs: 0 });
    expect(decisions).toEqual([
      {
        index: 0,
        kind: 'message',
        reason: 'repeating equals true',
        error: 'actions[0].text line 1, column 1: {{output.hint}}: the output has no field hint',
      },
      { index: 1, kind: 'message', reason: 'repeating equals true', text: 'plain' },
    ]);
  });

  it('refuses unknown placeholders when it compiles', () => {
    const parsed = [SentinelAction.parse({ when: { regex: 'x' }, do: 'message', text: '{{output.advice}}' })];
    expect(compileActions(parsed, false)).toEqual({
      ok: false,
      message:
        'actions[0].text line 1, column 1: {{output.advice}}: output has fields only for sentinels with structured output; write {{output}}',
    });
  });
});

describe('actions a guard keeps back say why (trial 17 M3)', () => {
  it('the cooldown, maxActions, a redo past its max and an earlier halt each name themselves', () => {
    const actions = compiled([
      { when: REPEATING, do: 'message', text: '{{output.advice}}' },
      { when: REPEATING, do: 'redo', max: 1 },
      { when: REPEATING, do: 'halt', after: 2 },
    ]);
    const limits = { maxActions: 5, cooldownMs: 30_000 };
    let guards: RunGuards = freshGuards(actions.length);
    const step = (at: number, redos: number) => {
      const s = decideActions(actions, context(verdict(true)), guards, limits, at, () => redos);
      guards = s.guards;
      return { taken: s.decisions.map((d) => d.kind), held: s.heldBack.map((h) => `${h.kind}: ${h.why}`) };
    };
    // The redo ends the run: the halt (not yet due) says nothing; the message went first.
    expect(step(0, 0)).toEqual({ taken: ['message', 'redo'], held: [] });
    const fresh = (at: number, redos: number) => {
      guards = freshGuards(actions.length);
      return step(at, redos);
    };
    expect(fresh(0, 1)).toEqual({
      taken: ['message'],
      held: ['redo: its max (1) redos of this codon were taken'],
    });
    expect(step(10_000, 1)).toEqual({
      taken: ['halt'],
      held: ['message: cooldown: 20 s left', 'redo: its max (1) redos of this codon were taken'],
    });
    expect(step(50_000, 1)).toEqual({
      taken: [],
      held: [
        "message: an earlier action of this sentinel ended the codon's run",
        "redo: an earlier action of this sentinel ended the codon's run",
        "halt: an earlier action of this sentinel ended the codon's run",
      ],
    });
    // An action held back by one of the same output that ended the run names it.
    guards = freshGuards(actions.length);
    expect(step(0, 0).held).toEqual([]);
    const haltFirst = compiled([
      { when: REPEATING, do: 'halt' },
      { when: REPEATING, do: 'message', text: 'x' },
    ]);
    const same = decideActions(haltFirst, context(verdict(true)), freshGuards(2), limits, 0, () => 0);
    expect(same.decisions.map((d) => d.kind)).toEqual(['halt']);
    expect(same.heldBack).toEqual([
      { index: 1, kind: 'message', why: "the halt on this output ends the codon's run" },
    ]);
    guards = freshGuards(actions.length);
    const tight = decideActions(
      actions,
      context(verdict(true)),
      guards,
      { maxActions: 1, cooldownMs: 0 },
      0,
      () => 1,
    );
    expect(tight.heldBack.map((h) => `${h.kind}: ${h.why}`)).toEqual([
      "redo: maxActions (1) reached in this codon's run",
    ]);
  });
});
