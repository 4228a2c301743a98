import { afterEach, describe, expect, it } from 'vitest';
import type { ActionEngine, MessageOutcome, SendMessage } from '../../../../src/engine/ports.ts';
import { waitFor } from '../../../helpers/processes.ts';
import { startHarness, stopHarnesses, toolEvents } from '../helpers.ts';

afterEach(stopHarnesses);

const verdict = (repeating: boolean) => ({
  content: [
    {
      text: JSON.stringify({
        repeating,
        pattern: repeating ? 'echo' : '',
        advice: repeating ? 'Stop echoing; write the file.' : '',
      }),
    },
  ],
});

/** A codon watched by one structured sentinel (a call per tool call) with `extra` lines of its own. */
const plan = (extra: string) => `name: t
codons:
  - id: loop
    name: Loop
    prompt: Do it.
    sentinels:
      - id: watcher
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
        output:
          type: structured
          schema:
            type: object
            properties: { repeating: { type: boolean }, pattern: { type: string }, advice: { type: string } }
            required: [repeating, pattern, advice]
${extra}`;

type Call = { kind: string; args: unknown[] };

/** Fakes of the engine and the message path that record what they were asked. */
function fakes(answers: { message?: MessageOutcome; halt?: { ok: false; message: string } } = {}) {
  const calls: Call[] = [];
  const engine: ActionEngine = {
    halt: (...args) => {
      calls.push({ kind: 'halt', args });
      return answers.halt ?? { ok: true };
    },
    rollback: (codonId, why) => {
      calls.push({ kind: 'rollback', args: [codonId, why] });
      return { ok: true };
    },
    redo: (codonId, why, text) => {
      calls.push({ kind: 'redo', args: [codonId, why, text] });
      return { ok: true };
    },
    comment: (codonId, comment) => {
      calls.push({ kind: 'comment', args: [codonId, comment] });
      return { ok: true };
    },
  };
  const sendMessage: SendMessage = async (text, from) => {
    calls.push({ kind: 'message', args: [text, from] });
    return answers.message ?? { ok: true };
  };
  return { calls, engine, sendMessage };
}

/**
 * Runs the codon: `toolCalls` tool results, each followed by a wait for its output (or until
 * `ended()`: the sentinel's action ended the run, and it answers no more), then the codon's end.
 */
async function runCodon(
  h: Awaited<ReturnType<typeof startHarness>>,
  toolCalls: number,
  order: string[] = [],
  ended: () => boolean = () => false,
) {
  const codon = h.codon('loop');
  h.bus.subscribe((e) => {
    if (e.type === 'sentinel.action') order.push(`event ${e.data.action}`);
  });
  expect(await h.hooks.beforeAgent(codon, 'run-1')).toBeUndefined();
  for (let n = 1; n <= toolCalls; n++) {
    const [, result] = toolEvents('loop', n);
    await h.publish(result.type, result.data);
    await waitFor(() => h.of('sentinel.output').length >= n || ended(), `output ${n}`, 10_000);
  }
  await h.hooks.afterAgent(codon, 'run-1');
}

describe('sentinel actions (in-process: real bus and scripted provider, fake engine)', () => {
  it('a message action sends the rendered advice after sentinel.action; a halt on the third repeat', async () => {
    const f = fakes();
    const order: string[] = [];
    const recorded = f.calls;
    const h = await startHarness({
      plan: plan(`        actions:
          - { when: [{ path: repeating, op: equals, value: true }], do: message, text: "{{output.advice}}" }
          - { when: [{ path: repeating, op: equals, value: true }], do: halt, after: 3 }
        cooldownMs: 0
        maxActions: 5
`),
      script: { tracks: [{ name: 'watcher', match: { tools: false }, turns: [verdict(true)], loop: true }] },
      hooks: {
        engine: f.engine,
        sendMessage: (text, from) => {
          order.push('sendMessage');
          return f.sendMessage(text, from);
        },
      },
    });
    await runCodon(h, 5, order, () => recorded.some((c) => c.kind === 'halt'));

    expect(recorded.map((c) => c.kind)).toEqual(['message', 'message', 'message', 'halt']);
    expect(recorded[0]?.args).toEqual([
      'Stop echoing; write the file.',
      { kind: 'sentinel', sentinelId: 'watcher' },
    ]);
    const [codonId, why] = (recorded[3]?.args ?? []) as [string, string];
    expect(codonId).toBe('loop');
    expect(why).toContain(
      'by sentinel watcher (halt on repeating equals true (3 times)); its output: {"repeating":true',
    );
    // Each action is announced before it is taken.
    expect(order.slice(0, 2)).toEqual(['event message', 'sendMessage']);
    expect(h.of('sentinel.action').map((e) => e.data)).toEqual([
      ...[1, 2, 3].map((triggerNumber) => ({
        sentinelId: 'watcher',
        codonId: 'loop',
        triggerNumber,
        action: 'message',
        dryRun: false,
        reason: 'repeating equals true',
        text: 'Stop echoing; write the file.',
      })),
      {
        sentinelId: 'watcher',
        codonId: 'loop',
        triggerNumber: 3,
        action: 'halt',
        dryRun: false,
        reason: 'repeating equals true (3 times)',
      },
    ]);
    // After the halt the sentinel calls the model no more, even at codon end.
    expect(h.requests('watcher')).toHaveLength(3);
    expect(h.sentinelTrail().at(-1)).toBe('unloaded:codon-complete');
  });

  it('dryRun announces what it would do and does nothing; maxActions and the cooldown bound it', async () => {
    const f = fakes();
    const h = await startHarness({
      plan: plan(`        actions:
          - { when: [{ path: repeating, op: equals, value: true }], do: message, text: "{{output.advice}}" }
          - { when: [{ path: repeating, op: equals, value: true }], do: rollback, after: 4 }
        dryRun: true
        maxActions: 2
`),
      script: { tracks: [{ name: 'watcher', match: { tools: false }, turns: [verdict(true)], loop: true }] },
      hooks: { engine: f.engine, sendMessage: f.sendMessage },
    });
    await runCodon(h, 5);
    expect(f.calls).toEqual([]);
    // The first repeat: a message; the cooldown (30 s) holds the next ones back; the fourth: the
    // rollback, the second action of the run (maxActions 2), announced only.
    expect(h.of('sentinel.action').map((e) => [e.data.triggerNumber, e.data.action, e.data.dryRun])).toEqual([
      [1, 'message', true],
      [4, 'rollback', true],
    ]);
    // A dry run keeps watching.
    expect(h.requests('watcher')).toHaveLength(5);
  });

  it('an action held back by a halt on the same output is noted after that halt, naming it (trial 17b L1)', async () => {
    for (const dryRun of [true, false]) {
      const f = fakes();
      const h = await startHarness({
        plan: plan(`        actions:
          - { when: [{ path: repeating, op: equals, value: true }], do: halt }
          - { when: [{ path: repeating, op: equals, value: true }], do: rollback }
          - { when: [{ path: repeating, op: equals, value: true }], do: message, text: "{{output.advice}}" }
        dryRun: ${dryRun}
`),
        script: {
          tracks: [{ name: 'watcher', match: { tools: false }, turns: [verdict(true)], loop: true }],
        },
        hooks: { engine: f.engine, sendMessage: f.sendMessage },
      });
      await runCodon(h, 1, [], () => h.of('sentinel.action').length > 0);
      await waitFor(() => h.of('info').length >= 2, 'the notes', 10_000);
      const said = h.events.flatMap((e) =>
        e.type === 'sentinel.action'
          ? [`action ${e.data.action}`]
          : e.type === 'info' && e.data.message.startsWith('sentinel watcher')
            ? [e.data.message]
            : [],
      );
      const dry = dryRun ? ' (dry run)' : '';
      expect(said).toEqual([
        'action halt',
        `sentinel watcher: rollback on output #1 not taken${dry}: the halt on this output ends the codon's run`,
        `sentinel watcher: message on output #1 not taken${dry}: the halt on this output ends the codon's run`,
      ]);
      await h.stop();
    }
  });

  it('an action the engine refuses is a sentinel.error (action-failed); the sentinel goes on', async () => {
    const f = fakes({
      message: { ok: false, code: 'NO_CODON_RUNNING', message: 'no codon is running' },
      halt: { ok: false, message: 'codon loop has ended (its end is being recorded)' },
    });
    const h = await startHarness({
      plan: plan(`        actions:
          - { when: [{ path: repeating, op: equals, value: true }], do: message, text: "{{output.advice}}" }
          - { when: [{ path: repeating, op: equals, value: false }], do: halt }
`),
      script: {
        tracks: [
          {
            name: 'watcher',
            match: { tools: false },
            turns: [verdict(true), verdict(false), verdict(false)],
          },
        ],
      },
      hooks: { engine: f.engine, sendMessage: f.sendMessage },
    });
    await runCodon(h, 3);
    expect(h.of('sentinel.error').map((e) => [e.data.errorType, e.data.message, e.data.retriable])).toEqual([
      ['action-failed', 'message failed: NO_CODON_RUNNING: no codon is running', false],
      ['action-failed', 'halt failed: codon loop has ended (its end is being recorded)', false],
    ]);
    expect(h.sentinelTrail()).toEqual([
      'loaded',
      'triggered:1',
      'output:1',
      'action:1',
      'error',
      'triggered:2',
      'output:2',
      'action:2',
      'error',
      'triggered:3',
      'output:3',
      'unloaded:codon-complete',
    ]);
  });
});
