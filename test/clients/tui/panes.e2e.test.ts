import { cleanup } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initialRunState } from '../../../src/clients/model/store/run-state.ts';
import { sentinelOutput } from '../../../src/clients/model/store/sentinels.ts';
import { sentinelLines } from '../../../src/clients/tui/view/content/sentinel-lines.ts';
import type { ServerEventOf } from '../../../src/core/protocol/index.ts';
import {
  codonEnd,
  codonStart,
  RUN,
  resetCost,
  rollback,
  runStarted,
  toolCall,
  toolDone,
  transition,
  usage,
} from '../model/helpers/events.ts';
import { ev, FakeClient } from '../model/helpers/fake-client.ts';
import { eventually, KEYS, renderApp } from './helpers/render.ts';

beforeEach(() => resetCost());
afterEach(() => cleanup());

const planRun = () => [
  ...runStarted('ribosome/run-1'),
  ...codonStart('one', 0, 'Write hello'),
  ev('assistant.action', { codonId: 'one', action: 'message', content: 'Writing hello.txt.' }),
  toolCall('one', 'Write', 'hello.txt', { file_path: 'hello.txt', content: 'hi' }),
  ...usage('one', 2_300, 40, 0.0123),
  toolDone('one', 'Write', 'File written: hello.txt'),
  ev('file.updated', {
    path: 'agentRoot/hello.txt',
    filename: 'hello.txt',
    content: 'hi',
    action: 'created',
  }),
  ...codonEnd('one', 'completed', 0.0123, 2_100),
  ...codonStart('two', 1, 'Edit hello'),
  ev('assistant.action', { codonId: 'two', action: 'thinking', content: 'Let me look at the file first.' }),
  toolCall('two', 'Bash', 'sleep 30', { command: 'sleep 30' }),
];

describe('codon list pane', () => {
  it('lists the known codons with status, cost and duration, the running one highlighted', async () => {
    const app = renderApp(new FakeClient({ history: planRun() }), { width: 140 });
    const frame = await app.waitFor('two Edit hello');
    expect(frame).toMatch(/✓ one Write hello\s+completed\s+\$0\.0123\s+2\.1s/);
    expect(frame).toMatch(/▶ two Edit hello\s+running/);
    expect(frame).toContain('Codons · running two');
    expect(frame).toContain('… later codons appear when they start');
  });

  it('shows the codons of the plan from server.ready as pending, and the proxy', async () => {
    const client = new FakeClient({
      history: planRun(),
      ready: {
        plan: {
          name: 'p',
          codons: [
            { codonId: 'one', codonName: 'Write hello', index: 0, agent: 'builtin' },
            { codonId: 'two', codonName: 'Edit hello', index: 1, agent: 'builtin' },
            { codonId: 'three', codonName: 'Write README', index: 2, agent: 'gemini' },
          ],
        },
        proxy: { enabled: true, url: 'http://127.0.0.1:4712' },
      },
    });
    const app = renderApp(client, { width: 140 });
    const frame = await app.waitFor('gemini');
    // A plan that mixes agents: a codon not started yet names the agent the plan gives it (its name
    // cut before the agent is).
    expect(frame).toMatch(/· three Write RE… gemini pending/);
    // (Whether the history's codon.started for two came first or not: pending or running.)
    expect(frame).toMatch(/[·▶] two Edit hello builtin (pending|running)/);
    expect(frame.indexOf('two Edit hello')).toBeLessThan(frame.indexOf('three Write RE'));
    expect(frame).not.toContain('later codons appear');
    expect(frame).toContain('proxy on http://127.0.0.1:4712');
  });

  it('names no agent in the codon list when every codon has the same one (names are not cut for it)', async () => {
    const codons = ['one', 'two'].map((codonId, index) => ({
      codonId,
      codonName: `A long name for codon ${codonId}`,
      index,
      agent: 'builtin',
    }));
    const app = renderApp(new FakeClient({ history: planRun(), ready: { plan: { name: 'p', codons } } }), {
      width: 140,
    });
    const frame = await app.waitFor('▶ two A long name');
    expect(frame).not.toMatch(/[✓▶] (one|two) A long name[^│]*builtin/);
  });

  it('grows with the terminal: a name cut at 80 columns is whole at 180', async () => {
    const name = 'Add tests for the parser with apply_patch';
    const codons = [{ codonId: 'tests', codonName: name, index: 0, agent: 'builtin' }];
    const client = () => new FakeClient({ history: [], ready: { plan: { name: 'p', codons } } });
    const narrow = renderApp(client(), { width: 80 });
    expect(await narrow.waitFor('· tests')).not.toContain(name);
    narrow.unmount();
    const wide = renderApp(client(), { width: 180 });
    expect(await wide.waitFor('· tests')).toMatch(
      /· tests Add tests for the parser with apply_patch\s+pending/,
    );
  });

  it('fills in as live events arrive', async () => {
    const client = new FakeClient();
    const app = renderApp(client, { width: 140 });
    await app.waitFor('No codon has started yet.');
    client.emit(...codonStart('alpha', 0));
    await app.waitFor('▶ alpha');
    client.emit(...codonEnd('alpha', 'failed'), ...codonStart('beta', 1));
    const frame = await app.waitFor('▶ beta');
    expect(frame).toMatch(/✗ alpha Codon alpha\s+failed/);
  });
});

describe('codon list pane: automatic retries', () => {
  it('shows the attempt, and the model once the fallback runs it', async () => {
    const client = new FakeClient();
    const app = renderApp(client, { width: 140 });
    await app.waitFor('No codon has started yet.');
    client.emit(...codonStart('alpha', 0, 'Build', { attempt: 1, maxAttempts: 3, model: 'big' }));
    let frame = await app.waitFor('attempt 1/3');
    expect(frame).toMatch(/▶ alpha Build\s+attempt 1\/3/);
    expect(frame).not.toContain('big');
    client.emit(
      ...codonEnd('alpha', 'failed'),
      ...codonStart('alpha', 0, 'Build', { attempt: 2, maxAttempts: 3, model: 'small' }),
    );
    frame = await app.waitFor('attempt 2/3');
    expect(frame).toMatch(/▶ alpha Build small\s+attempt 2\/3/);
    client.emit(...codonEnd('alpha', 'completed'));
    frame = await app.waitFor('completed');
    expect(frame).toMatch(/✓ alpha Build small\s+completed/);
  });

  it('shows no attempt for a codon without retries, and the count of starts as before', async () => {
    const client = new FakeClient();
    const app = renderApp(client, { width: 140 });
    await app.waitFor('No codon has started yet.');
    client.emit(...codonStart('beta', 0), ...codonEnd('beta', 'failed'), ...codonStart('beta', 0));
    const frame = await app.waitFor('×2');
    expect(frame).not.toContain('attempt');
  });
});

describe('activity pane', () => {
  it('shows messages, thinking, tool calls with results, and file changes', async () => {
    const app = renderApp(new FakeClient({ history: planRun() }));
    const frame = await app.waitFor('sleep 30');
    expect(frame).toContain('say   Writing hello.txt.');
    expect(frame).toContain('+tool  Write hello.txt  ✓ 42ms');
    expect(frame).toContain('+file  created agentRoot/hello.txt');
    expect(frame).toContain('think Let me look at the file first.');
    expect(frame).toContain('+tool  Bash sleep 30  … running');
    expect(frame).toContain('■ one completed in 2.1s, $0.0123');
  });

  it('expands the selected entry with enter and collapses it again', async () => {
    const app = renderApp(new FakeClient({ history: planRun() }));
    await app.waitFor('sleep 30');
    await app.press(KEYS.up, KEYS.up, KEYS.up, KEYS.up, KEYS.up, KEYS.up);
    await app.waitFor('›+tool  Write hello.txt');
    await app.press(KEYS.enter);
    const open = await app.waitFor('File written: hello.txt');
    expect(open).toContain('›−tool  Write hello.txt');
    expect(open).toContain('"file_path": "hello.txt"');
    await app.press(KEYS.enter);
    await app.waitFor((f) => !f.includes('File written: hello.txt'));
  });

  it('adds new lines as they happen', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client);
    await app.waitFor('sleep 30');
    client.emit(toolDone('two', 'Bash', '', true));
    await app.waitFor('Bash sleep 30  ✗ failed 42ms');
    client.emit(ev('assistant.action', { codonId: 'two', action: 'message', content: 'Something new.' }));
    await app.waitFor('say   Something new.');
  });
});

describe('totals', () => {
  it('shows cost, tokens, elapsed time, run id, branch and proxy', async () => {
    const app = renderApp(new FakeClient({ history: planRun() }));
    const frame = await app.waitFor('tokens 2.3k in · 40 out');
    expect(frame).toContain(`run ${RUN}`);
    expect(frame).toContain('branch ribosome/run-1');
    expect(frame).toContain('proxy unknown');
    expect(frame).toContain('cost $0.0123');
    expect(frame).toMatch(/elapsed 01:0\d/);
    expect(frame).toContain('● connected');
  });
});

describe('sentinel pane', () => {
  it('shows outputs and errors by sentinel', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('No sentinel has loaded.');
    client.emit(
      ev('sentinel.loaded', {
        sentinelId: 'drift',
        codonId: 'two',
        model: 'claude-haiku',
        triggerType: 'event',
        executionStrategy: 'count',
        conversational: false,
        source: 'file',
      }),
      ev('sentinel.output', {
        sentinelId: 'drift',
        codonId: 'two',
        triggerNumber: 1,
        outputType: 'text',
        content: 'The agent stays on task.',
        cost: 0.0004,
        tokens: { input: 100, output: 10 },
        eventCount: 5,
      }),
      ev('sentinel.error', {
        sentinelId: 'drift',
        codonId: 'two',
        errorType: 'llm-call-failed',
        message: 'HTTP 529 overloaded',
        retriable: true,
        consecutiveFailureCount: 2,
      }),
    );
    const frame = await app.waitFor('The agent stays on task.');
    expect(frame).toContain('● drift watching · codon two · claude-haiku, count');
    expect(frame).toContain('llm-call-failed: HTTP 529 overloaded (retriable), 2 in a row');
    expect(frame).toContain('Sentinels · 1');
  });

  it('says how many older outputs it no longer shows, and where they are', () => {
    let state = initialRunState('ws://x');
    for (let n = 1; n <= 60; n++)
      state = sentinelOutput(
        state,
        ev('sentinel.output', {
          sentinelId: 'drift',
          codonId: 'two',
          triggerNumber: n,
          outputType: 'text',
          content: `verdict ${n}`,
          cost: 0,
          tokens: { input: 1, output: 1 },
          eventCount: 1,
        }) as ServerEventOf<'sentinel.output'>,
      );
    const text = sentinelLines(state, 160).map((line) => line.text);
    expect(text).toContain('  … 10 earlier output(s) not kept here (ribosome log has every one)');
    expect(text.filter((line) => line.includes('verdict'))).toHaveLength(50);
    expect(text.at(-1)).toContain('verdict 60');
  });
});

describe('errors pane', () => {
  it('shows severity, code, message and the suggested action', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 140 });
    await app.waitFor('No errors.');
    client.emit(
      ev('error', {
        message: 'codon two failed: timeout',
        fatal: false,
        severity: 'codon',
        code: 'CODON_TIMEOUT',
        codon: 'two',
        context: 'timeout',
      }),
    );
    const frame = await app.waitFor('CODON_TIMEOUT');
    expect(frame).toMatch(/CODON \d\d:\d\d:\d\d CODON_TIMEOUT: codon two failed: timeout/);
    expect(frame).toContain('→ inspect failureReason; consider codon.redo [timeout]');
    expect(frame).toContain('Errors · 1');
  });

  it('keeps the newest 200 errors and says how many there were', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('No errors.');
    client.emit(
      ...Array.from({ length: 230 }, (_, i) =>
        ev('error', { message: `warning number ${i + 1}`, fatal: false, severity: 'warning' }),
      ),
    );
    const frame = await app.waitFor('warning number 230');
    expect(frame).toContain('Errors · last 200 of 230 (ribosome log has all)');
  });
});

describe('checkpoints and rollback', () => {
  const checkpointList = ev('checkpoint.list', {
    runId: RUN,
    currentBranch: 'ribosome/run-1',
    checkpoints: [
      {
        codonId: 'one',
        codonName: 'Write hello',
        checkpointType: 'completed',
        sha: 'a1b2c3d4e5f6',
        status: 'completed',
        timestamp: new Date().toISOString(),
      },
    ],
  });

  it('lists checkpoints with c', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 140 });
    await app.waitFor('sleep 30');
    await app.press('c');
    expect(client.sent).toContainEqual({ id: expect.any(String), type: 'checkpoint.list', data: {} });
    client.emit(checkpointList);
    const frame = await app.waitFor('a1b2c3d4 one completed');
    expect(frame).toContain('▶ Checkpoints');
  });

  it('picks a target, asks for confirmation, sends the rollback and shows its progress', async () => {
    const client = new FakeClient({ history: [...planRun(), checkpointList] });
    const app = renderApp(client, { width: 140, height: 36 });
    await app.waitFor('sleep 30');
    await app.press('3', '4'); // the checkpoints pane, shown on confirming, then gets the whole row
    await app.press('b');
    await app.waitFor('Roll back to…');
    expect(client.sent.at(-1)?.type).toBe('checkpoint.list');
    const picker = app.frame();
    expect(picker).toContain('› the last successful codon');
    expect(picker).toContain('start of one (Write hello)');
    expect(picker).toContain('end of one (completed)');
    expect(picker).toContain('checkpoint a1b2c3d4 one completed');
    await app.press(KEYS.down, KEYS.down, KEYS.enter);
    await app.waitFor('Roll back to end of one (completed)?  y: yes  a: yes, then restart  n: no');
    await app.press('y');
    await app.waitFor('asked the server');
    expect(client.controls().at(-1)).toMatchObject({
      type: 'rollback.toCodon',
      data: { codonId: 'one', checkpointType: 'end', autoRestart: false },
    });
    client.emit(
      ev('rollback.started', {
        fromRun: RUN,
        fromCodon: 'two',
        toCodon: 'one',
        toCheckpoint: 'a1b2c3d4e5f6',
        checkpointType: 'completed',
        codonsToProcess: ['two'],
      }),
      ev('rollback.progress', { currentStep: 1, totalSteps: 2, message: 'restoring the work tree' }),
    );
    const running = await app.waitFor('[##########----------] 1/2');
    expect(running).toContain('ROLLING BACK');
    expect(running).toContain('1/2 restoring the work tree');
    expect(running).toMatch(/▶ two Edit hello\s+running/); // undone only once the rollback completes
    client.emit(
      ev('rollback.completed', {
        fromRun: RUN,
        toRun: 'run-2',
        checkpoint: 'a1b2c3d4e5f6',
        codonId: 'one',
        codonName: 'Write hello',
        checkpointType: 'completed',
        autoRestart: false,
      }),
    );
    const done = await app.waitFor('Rollback to end of one (completed): completed; now run run-2');
    expect(done).toMatch(/· two Edit hello\s+undone\s+\$0\s*│/);
    expect(done).toMatch(/✓ one Write hello\s+completed\s+\$0\.0123\s+2\.1s/);
  });

  it('after a rollback, shows the undone codons pending without cost or time, and names what runs next', async () => {
    const history = [
      ...runStarted('run/run-1'),
      ...['one', 'two', 'three'].flatMap((id, i) => [
        ...codonStart(id, i),
        ...usage(id, 1_000, 10, 0.01 * (i + 1)),
        ...codonEnd(id, 'completed', 0.01 * (i + 1), 1_500),
      ]),
      ev('server.idle', { reason: 'all-codons-completed', message: 'all 3 codons of plan "p" have run' }),
    ];
    history.push(
      ...rollback({ toCodon: 'one', checkpointType: 'completed', undo: ['two', 'three'], toRun: 'run-2' }),
      ev('server.idle', {
        reason: 'codon-completed',
        message: 'idle; codon.next starts two',
        nextCodonId: 'two',
        lastEnded: { codonId: 'one', status: 'completed' },
      }),
    );
    const app = renderApp(new FakeClient({ history }), { width: 140 });
    const frame = await app.waitFor('idle · next: two');
    const codonPane = (name: string) =>
      frame
        .split('\n')
        .find((l) => l.includes(name))
        ?.split('│')[0] ?? '';
    expect(codonPane('one Codon one')).toMatch(/✓ one Codon one\s+completed\s+\$0\.0100\s+1\.5s\s*$/);
    expect(codonPane('two Codon two')).toMatch(/▷ two Codon two\s+next\s+\$0\s*$/);
    expect(codonPane('three Codon three')).toMatch(/· three Codon three\s+undone\s+\$0\s*$/);
    // The header's cost is the server's: nothing in the new run yet, every run's total beside it.
    expect(frame).toContain('cost $0 (all runs $0.0600)');
    expect(frame).toContain('run run-2');
    expect(frame).toContain('READ-WRITE  n next: two  s skip');
  });

  it('shows the server refusing a rollback, with its code', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 140 });
    await app.waitFor('sleep 30');
    await app.press('b', KEYS.enter, 'a');
    expect(client.controls().at(-1)).toMatchObject({
      type: 'rollback.toLastSuccess',
      data: { autoRestart: true },
    });
    client.refuse('NOT_SUPPORTED', 'rollback is not available in this build');
    const frame = await app.waitFor('refused: NOT_SUPPORTED');
    expect(frame).toContain('operation NOT_SUPPORTED: rollback is not available in this build');
  });
});

describe('controls', () => {
  it('sends next, skip and redo', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client);
    await app.waitFor('sleep 30');
    await app.press('n', 's', 'r');
    expect(client.controls().map((c) => c.type)).toEqual(['codon.next', 'codon.skip', 'codon.redo']);
    await app.waitFor('sent codon.redo: redo the last codon');
  });

  it('asks for a reason before a force stop', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client);
    await app.waitFor('sleep 30');
    await app.press('x');
    await app.waitFor('Force stop — reason:');
    await app.press('s', 't', 'u', 'c', 'k');
    await app.waitFor('reason: stuck');
    expect(client.controls()).toEqual([]);
    await app.press(KEYS.enter);
    expect(client.controls()).toEqual([
      { id: expect.any(String), type: 'codon.forceStop', data: { reason: 'stuck' } },
    ]);
  });

  it('m types a message to the agent; enter sends codon.message; the answer shows in Activity, a refusal in the status line', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 140 });
    await app.waitFor('sleep 30');
    await app.press('m');
    await app.waitFor('Message to the agent:');
    await app.press('u', 's', 'e', ' ', 'a', 'b');
    await app.waitFor('agent: use ab');
    expect(client.controls()).toEqual([]);
    await app.press(KEYS.enter);
    const [sent] = client.controls();
    expect(sent).toEqual({ id: expect.any(String), type: 'codon.message', data: { text: 'use ab' } });
    client.emit(
      ev('codon.message', {
        codonId: 'two',
        text: 'use ab',
        from: { kind: 'client', clientId: client.clientId },
        delivery: 'live',
      }),
      ev('codon.message', {
        codonId: 'two',
        text: 'stop looping',
        from: { kind: 'sentinel', sentinelId: 'loop-detector' },
        delivery: 'next-turn',
      }),
    );
    await app.waitFor('you → agent: use ab');
    await app.waitFor('sentinel loop-detector → agent: stop looping (a new turn)');
    // The status line says where it went, in a sentence.
    await app.waitFor("message sent to two's agent (live)");
    await app.press('m', 'h', 'i', KEYS.enter);
    await app.waitFor('sending the message to the agent…');
    client.refuse('NO_CODON_RUNNING', 'the agent of codon two has finished its work and takes no more input');
    await app.waitFor(
      'message not sent: NO_CODON_RUNNING: the agent of codon two has finished its work and takes no more input — m opens it again',
    );
    // What was typed is not lost: m opens the prompt with it.
    await app.press('m');
    await app.waitFor('Message to the agent: hi');
  });

  it('m with no codon running says so at once, and keeps what was typed (trial 17 L4)', async () => {
    const client = new FakeClient({ history: [...runStarted('ribosome/run-1'), ...codonStart('one', 0)] });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('▶ one');
    client.emit(...codonEnd('one', 'completed'));
    await app.waitFor('✓ one');
    await app.press('m');
    await app.waitFor('no codon is running: the server refuses it until one runs');
    await app.press('w', 'a', 'i', 't', KEYS.escape);
    await app.waitFor((f) => !f.includes('no codon is running'));
    await app.press('m');
    await app.waitFor('esc keeps it): wait');
  });

  it('the message prompt says how much of the limit a long text takes, and when a paste was cut (trial 17b L5)', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('sleep 30');
    await app.press('m');
    await app.waitFor('(enter: send · esc: close, kept)');
    await app.press('a'.repeat(2048));
    await app.waitFor('(2.0 of 32 KiB · enter: send · esc: close, kept)');
    await app.press('b'.repeat(40_000));
    await app.waitFor('cut at the message limit (32 KiB)  (32.0 of 32 KiB · enter: send · esc: close, kept)');
    await app.press(KEYS.enter);
    const [sent] = client.controls();
    expect(sent).toMatchObject({
      type: 'codon.message',
      data: { text: `${'a'.repeat(2048)}${'b'.repeat(30_720)}` },
    });
  });

  it("a sentinel's action that then failed reads as failed in Activity (trial 17 L4)", async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 160 });
    await app.waitFor('sleep 30');
    const action = (sentinelId: string, act: 'halt' | 'rollback') =>
      ev('sentinel.action', {
        sentinelId,
        codonId: 'two',
        triggerNumber: 1,
        action: act,
        dryRun: false,
        reason: 'regex ^X',
      });
    client.emit(
      action('twoA', 'halt'),
      action('twoB', 'rollback'),
      ev('sentinel.error', {
        sentinelId: 'twoB',
        codonId: 'two',
        errorType: 'action-failed',
        message: 'rollback failed: codon two is already being stopped',
        retriable: false,
        consecutiveFailureCount: 0,
      }),
    );
    const frame = await app.waitFor('— failed:');
    expect(frame).toContain('⚑ [twoB] rollback two (regex ^X) — failed: codon two is already being stopped');
    expect(frame).toMatch(/⚑ \[twoA\] halt two \(regex \^X\)\s*$/m);
  });

  it('shows a refused command in the status line and the errors pane', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 140 });
    await app.waitFor('sleep 30');
    await app.press('n');
    client.refuse('CODON_RUNNING', 'codon two is running');
    const frame = await app.waitFor('operation CODON_RUNNING: codon two is running');
    expect(frame).toContain('OPERATION');
    expect(frame).toContain('(codon.next)');
  });

  it('toggles panes and shows help', async () => {
    const app = renderApp(new FakeClient({ history: planRun() }));
    await app.waitFor('sleep 30');
    await app.press('3', '4');
    await app.waitFor((f) => !f.includes('Sentinels') && !f.includes('Errors'));
    await app.press('1');
    await app.waitFor((f) => !f.includes('Codons ·'));
    await app.press('?');
    const help = await app.waitFor('esc or ? closes this help');
    expect(help).toContain('x      force stop the running codon; asks for a reason');
    await app.press(KEYS.escape);
    await app.waitFor('Activity');
  });

  it('quits with q', async () => {
    let quit = 0;
    const app = renderApp(new FakeClient({ history: planRun() }), { onQuit: () => quit++ });
    await app.waitFor('sleep 30');
    await app.press('q');
    expect(quit).toBe(1);
  });
});

describe('readonly mode', () => {
  it('hides every control and sends none', async () => {
    const client = new FakeClient({ history: planRun(), mode: 'readonly' });
    const app = renderApp(client, { readonly: true });
    const frame = await app.waitFor('sleep 30');
    expect(frame).toContain('READ-ONLY');
    for (const control of ['n next', 's skip', 'r redo', 'x stop', 'b rollback'])
      expect(frame).not.toContain(control);
    await app.press('n', 's', 'r', 'x', 'b');
    expect(client.controls()).toEqual([]);
    expect(app.frame()).not.toContain('Force stop');
  });

  it('follows the mode the server granted', async () => {
    const app = renderApp(new FakeClient({ history: planRun(), mode: 'readonly' }), { readonly: false });
    await app.waitFor('READ-ONLY');
  });
});

describe('connection', () => {
  it('syncs history first and folds live events held meanwhile once', async () => {
    const client = new FakeClient({ history: planRun() });
    let open = () => {};
    client.gate = new Promise((r) => {
      open = r;
    });
    const app = renderApp(client);
    await app.waitFor('syncing history…');
    const duplicate = client.history.at(-1)!;
    client.emit(duplicate, ev('info', { message: 'live while syncing' }));
    open();
    const frame = await app.waitFor('live while syncing');
    expect(frame.match(/Bash sleep 30/g)).toHaveLength(1);
    expect(client.syncCount).toBe(1);
  });

  it('streams a long history batch by batch: the newest entries, how many came before, the codon totals', async () => {
    const steps = 1_500;
    const client = new FakeClient({
      history: [
        ...codonStart('long', 0),
        ...Array.from({ length: steps }, (_, i) => [
          ev('assistant.action', { codonId: 'long', action: 'message', content: `step ${i}` }),
          ev('info', { message: `checked ${i}` }),
        ]).flat(),
      ],
    });
    client.batchSize = 250;
    const app = renderApp(client);
    const frame = await app.waitFor('checked 1499');
    // 3 001 entries; the pane keeps the last 1 000 and says so in its title.
    expect(frame).toContain('following · last 1,000 of 3,001');
    await app.press('\u001b[Z'); // shift+tab: the Codons pane
    await app.waitFor('▶ Codons');
    await app.press(KEYS.down, KEYS.enter);
    expect(await app.waitFor('1,500 message(s)')).toMatch(/activity\s+1,500 message\(s\)/);
  });

  it('shows a lost connection clearly and syncs again on reconnect', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client);
    await app.waitFor('sleep 30');
    client.setState('reconnecting');
    const lost = await app.waitFor('CONNECTION LOST');
    expect(lost).toContain('connection lost; reconnecting to ws://127.0.0.1:4711…');
    await app.press('n');
    await app.waitFor('could not send codon.next: not connected');
    client.history = [...planRun().slice(0, 3), ...codonStart('three', 2)];
    client.setState('open');
    const back = await app.waitFor('reconnected; history synced again');
    expect(back).toContain('▶ three');
    expect(client.syncCount).toBe(2);
    client.setState('closed');
    await app.waitFor('DISCONNECTED');
  });
});

describe('terminal size and colour', () => {
  it('fits in 80x24', async () => {
    const app = renderApp(new FakeClient({ history: planRun() }), { width: 80, height: 24 });
    const frame = await app.waitFor('sleep 30');
    const lines = frame.split('\n');
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(80);
    expect(frame).toContain('READ-WRITE');
    expect(frame).toContain('q quit');
  });

  it('scales up to a large terminal', async () => {
    const app = renderApp(new FakeClient({ history: planRun() }), { width: 200, height: 60 });
    const frame = await app.waitFor('sleep 30');
    expect(frame.split('\n').length).toBe(59);
    expect(frame).toContain('1-5 panes');
  });
});

describe('checkpoint refresh', () => {
  it('asks for checkpoint.list after the history, and again when the run changes', async () => {
    const client = new FakeClient({ history: planRun(), mode: 'readonly' });
    const app = renderApp(client, { readonly: true });
    await app.waitFor('sleep 30');
    await eventually('a checkpoint.list', () => client.sent.length === 1);
    expect(client.sent).toEqual([{ id: expect.any(String), type: 'checkpoint.list', data: { runId: RUN } }]);
    client.emit(
      ev('state.transition', {
        transitionType: 'RunStarted',
        runId: 'run-2',
        transition: {
          type: 'RunStarted',
          data: {
            runId: 'run-2',
            startedAt: new Date().toISOString(),
            reason: 'rollback',
            nextCodonIndex: 1,
          },
        },
        resultingState: { currentRunId: 'run-2', runCount: 2, totalCost: 0, currentRunCost: 0 },
      }),
    );
    await app.waitFor('run run-2');
    await eventually('a second checkpoint.list', () => client.sent.length === 2);
    expect(client.sent.map((c) => c.data)).toEqual([{ runId: RUN }, { runId: 'run-2' }]);
  });
});

describe('transition-only details', () => {
  it('reads checkpoints created during the run', async () => {
    const client = new FakeClient({ history: planRun() });
    const app = renderApp(client, { width: 140 });
    await app.waitFor('sleep 30');
    client.emit(
      transition('CheckpointCreated', {
        checkpoint: {
          codonId: 'two',
          codonName: 'Edit hello',
          checkpointType: 'rig-setup',
          sha: 'feedface0000',
          status: 'running',
          timestamp: new Date().toISOString(),
        },
      }),
    );
    await app.press('5');
    await app.waitFor('feedface two rig-setup (running)');
  });
});

describe('what the start said (ribosome run --web, a resumed execution)', () => {
  it('shows the dashboard address in the header, first notice and help; its key only in the help', async () => {
    const app = renderApp(new FakeClient({ history: planRun() }), {
      width: 160,
      dashboard: 'http://127.0.0.1:4713/?token=s3cret',
      notes: ['resuming exec: run 2, 1 of 2 codons done, next: two (--fresh starts anew)'],
    });
    const frame = await app.waitFor('two Edit hello');
    expect(frame).toContain('dashboard http://127.0.0.1:4713/ (its key: ? help)');
    expect(frame).toContain('dashboard http://127.0.0.1:4713/?token=s3cret · resuming exec: run 2');
    await app.press('?');
    const help = await app.waitFor('esc or ? closes this help');
    expect(help).toContain('dashboard http://127.0.0.1:4713/?token=s3cret');
    expect(help).toContain('resuming exec: run 2, 1 of 2 codons done, next: two');
  });
});
