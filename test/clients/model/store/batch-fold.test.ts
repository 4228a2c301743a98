import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { foldEvent } from '../../../../src/clients/model/store/fold-event.ts';
import { reduceRun } from '../../../../src/clients/model/store/reduce.ts';
import { initialRunState, type RunState } from '../../../../src/clients/model/store/run-state.ts';
import { initialDashboard, reduceDashboard } from '../../../../src/clients/web/model/dashboard.ts';
import type { ServerEvent } from '../../../../src/core/protocol/index.ts';
import {
  codonEnd,
  codonStart,
  resetCost,
  rollback,
  runStarted,
  toolCall,
  toolDone,
  usage,
} from '../helpers/events.ts';
import { ev } from '../helpers/fake-client.ts';

/**
 * A batch is folded with one copy of what it changes (batch-draft.ts: the batch's own copies are
 * changed in place): the result must be what folding its events one by one, each on a fresh copy,
 * gives, however the events are cut into batches, and no state given to the fold may change.
 */

const CODONS = ['one', 'two', 'three'] as const;
const codon = fc.constantFrom(...CODONS);

/** One step of an engine-shaped journal (test/clients/model/helpers/events.ts), as its events. */
const step = fc.oneof(
  fc.record({ kind: fc.constant('start' as const), codon }),
  fc.record({
    kind: fc.constant('end' as const),
    codon,
    to: fc.constantFrom('completed', 'failed', 'stopped'),
  }),
  fc.record({
    kind: fc.constant('call' as const),
    codon,
    tool: fc.constantFrom('Read', 'Bash'),
    id: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('result' as const),
    codon,
    tool: fc.constantFrom('Read', 'Bash'),
    back: fc.nat(4),
  }),
  fc.record({ kind: fc.constant('say' as const), codon, thinking: fc.boolean() }),
  fc.record({ kind: fc.constant('usage' as const), codon, estimated: fc.boolean() }),
  fc.record({ kind: fc.constant('note' as const), which: fc.constantFrom('info', 'error', 'file', 'idle') }),
  fc.record({ kind: fc.constant('wait' as const), codon, which: fc.constantFrom('usage', 'approval') }),
  fc.record({ kind: fc.constant('message' as const), codon, own: fc.boolean() }),
  fc.record({ kind: fc.constant('rollback' as const), codon }),
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

function journal(steps: readonly Step[]): ServerEvent[] {
  resetCost();
  const events: ServerEvent[] = [...runStarted('ribosome/run-1')];
  const calls: string[] = [];
  let n = 0;
  let runs = 1;
  for (const s of steps) {
    n++;
    switch (s.kind) {
      case 'start':
        events.push(...codonStart(s.codon, CODONS.indexOf(s.codon)));
        break;
      case 'end':
        events.push(...codonEnd(s.codon, s.to, 0.01 * n, 100 * n));
        break;
      case 'call': {
        const id = `toolu_${n}`;
        calls.push(id);
        events.push(
          toolCall(s.codon, s.tool, `src/f${n}.ts`, { path: `src/f${n}.ts` }, s.id ? id : undefined),
        );
        break;
      }
      case 'result':
        events.push(
          toolDone(s.codon, s.tool, `result ${n}`, n % 3 === 0, calls.at(-1 - s.back) ?? `toolu_x${n}`),
        );
        break;
      case 'say':
        events.push(
          ev('assistant.action', {
            codonId: s.codon,
            action: s.thinking ? 'thinking' : 'message',
            content: `said ${n}`,
          }),
        );
        break;
      case 'usage':
        events.push(...usage(s.codon, 10 * n, n, 0.001 * n));
        if (s.estimated)
          events.push(
            ev('token.usage', {
              codonId: s.codon,
              inputTokens: n,
              outputTokens: n,
              cacheCreationTokens: 0,
              cacheReadTokens: 0,
              totalCost: 0.002,
              costEstimated: true,
            }),
          );
        break;
      case 'note':
        events.push(
          s.which === 'info'
            ? ev('info', { message: `note ${n}` })
            : s.which === 'error'
              ? ev('error', {
                  message: `failed ${n}`,
                  fatal: false,
                  code: 'NO_CODON_RUNNING',
                  commandId: 'cmd-1',
                })
              : s.which === 'file'
                ? ev('file.updated', {
                    path: `src/f${n}.ts`,
                    filename: `f${n}.ts`,
                    action: 'modified',
                    content: `x ${n}`,
                  })
                : ev('server.idle', { reason: 'codon-completed', message: `idle ${n}` }),
        );
        break;
      case 'wait': {
        const since = new Date(Date.UTC(2026, 10, 30, 12, 0, n)).toISOString();
        events.push(
          s.which === 'usage'
            ? ev('usageLimit.waiting', {
                codonId: s.codon,
                agent: 'claude-code',
                until: since,
                waitMs: 1_000,
                message: `${s.codon} waits`,
              })
            : ev('approval.waiting', {
                codonId: s.codon,
                codonName: `Codon ${s.codon}`,
                since,
                approvers: 'control-clients',
                message: `${s.codon} waits for approval`,
              }),
          s.which === 'usage'
            ? ev('usageLimit.ended', { codonId: s.codon, how: 'reset', message: 'the wait ended' })
            : ev('approval.ended', { codonId: s.codon, how: 'approved', message: 'approved' }),
        );
        break;
      }
      case 'message':
        events.push(
          ev('codon.message', {
            codonId: s.codon,
            text: `hello ${n}`,
            from: { kind: 'client', clientId: s.own ? 'client-me' : 'client-other' },
            delivery: 'next-turn',
          }),
        );
        break;
      case 'rollback':
        events.push(
          ...rollback({
            toCodon: s.codon,
            checkpointType: 'completed',
            undo: ['three'],
            toRun: `run-${++runs}`,
          }),
        );
        break;
    }
  }
  return events;
}

/** `events` cut into batches at the given places. */
function batches(events: readonly ServerEvent[], cuts: readonly number[]): ServerEvent[][] {
  const at = [...new Set(cuts.map((c) => c % (events.length + 1)))].sort((a, b) => a - b);
  const out: ServerEvent[][] = [];
  let from = 0;
  for (const to of [...at, events.length]) {
    if (to > from) out.push(events.slice(from, to));
    from = Math.max(from, to);
  }
  return out;
}

/** A state that has a client id and commands waiting for their answers (answerCommand changes them). */
function start(activityLimit: number | undefined): RunState {
  let s = initialRunState('ws://x', activityLimit);
  s = reduceRun(s, { kind: 'connection', state: 'open', at: 't', clientId: 'client-me' });
  for (const [id, type] of [
    ['cmd-1', 'codon.message'],
    ['cmd-2', 'codon.next'],
    ['cmd-3', 'approval.approve'],
  ] as const)
    s = reduceRun(s, { kind: 'commandSent', id, type, label: type, text: 'hi' });
  return s;
}

const runs = { numRuns: 150 };

beforeEach(() => resetCost());

describe('a batch folded at once', () => {
  it('is the state folding its events one by one gives, and leaves every state given as it was', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 80 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom(undefined, 0),
        (steps, cuts, limit) => {
          const events = journal(steps);
          const initial = start(limit);
          // One by one, outside any batch: every change on a fresh copy.
          const expected = events.reduce(foldEvent, initial);
          let folded = initial;
          const given: Array<[RunState, RunState]> = [];
          for (const batch of batches(events, cuts)) {
            given.push([folded, structuredClone(folded)]);
            folded = reduceRun(folded, { kind: 'events', events: batch });
          }
          expect(folded).toStrictEqual(expected);
          for (const [state, before] of given) expect(state).toStrictEqual(before);
        },
      ),
      runs,
    );
  });

  it('streamed as a history (batch by batch, on the side) gives what one history action gives', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), fc.array(fc.nat(), { maxLength: 6 }), (steps, cuts) => {
        const events = journal(steps);
        const initial = start(undefined);
        const whole = reduceRun(initial, { kind: 'history', events });
        let streamed = reduceRun(initial, { kind: 'historyBegin' });
        for (const batch of batches(events, cuts))
          streamed = reduceRun(streamed, { kind: 'historyEvents', events: batch });
        expect(reduceRun(streamed, { kind: 'historyEnd' })).toStrictEqual(whole);
      }),
      runs,
    );
  });

  it("the dashboard's state is the same however its events are cut into batches", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), fc.array(fc.nat(), { maxLength: 6 }), (steps, cuts) => {
        const events = journal(steps);
        const one = events.reduce(
          (s, e) => reduceDashboard(s, { kind: 'events', events: [e] }),
          initialDashboard('ws://x'),
        );
        let cut = initialDashboard('ws://x');
        for (const batch of batches(events, cuts))
          cut = reduceDashboard(cut, { kind: 'events', events: batch });
        expect(cut.run).toStrictEqual(one.run);
        expect(cut.log.rows.toArray()).toStrictEqual(one.log.rows.toArray());
        expect(cut.eventCount).toBe(one.eventCount);
      }),
      runs,
    );
  });
});
