import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { pidsWith, waitFor } from '../../helpers/processes.ts';
import { startServer } from '../../helpers/server-process.ts';

/** Verification gates through a real server and the scripted provider (docs/unattended.md#verification-gates). */
const { clients, serve } = e2eResources();

const of = <T extends ServerEvent['type']>(events: readonly ServerEvent[], type: T) =>
  events.filter((e): e is Extract<ServerEvent, { type: T }> => e.type === type);

/** One codon whose agent writes result.txt saying "bad"; its gate wants "good". */
function gatedPlan(extra = '') {
  return `name: test
agent: builtin
codons:
  - id: one
    prompt: Do one.
    verify:
      - run: "grep -q good result.txt || { echo 'GATE-SAYS: result.txt must say good'; exit 4; }"
        timeoutMs: 20000
${extra}  - id: two
    prompt: Do two.
`;
}

/**
 * The agent writes "bad" first; only a request whose last user message carries the gate's output
 * (a feedback round's prompt) in the same conversation (its first user message is still the
 * codon's prompt: the session was continued, not started anew) gets the fix. Tracks are tried in
 * order, so the fix comes first.
 */
const FIXABLE = `tracks:
  - name: fix
    match: { firstUser: "Do one.", lastUser: "GATE-SAYS: result.txt must say good" }
    turns:
      - content:
          - text: The gate says it must say good.
          - tool_use: { name: Write, input: { file_path: result.txt, content: "good" } }
  - name: one
    match: { firstUser: "Do one." }
    turns:
      - content:
          - tool_use: { name: Write, input: { file_path: result.txt, content: "bad" } }
      - content: [{ text: "Wrote it." }]
turns: []
`;

/** Codon b's first run writes nothing; its second writes ok.txt (which its gate checks). */
const SECOND_TIME_OK = `tracks:
  - name: b
    match: { firstUser: "Do b." }
    turns:
      - content: [{ text: "Not yet." }]
      - content:
          - tool_use: { name: Write, input: { file_path: ok.txt, content: "ok" } }
      - content: [{ text: "Wrote ok.txt." }]
turns: []
`;

describe('verification gates', () => {
  it('a failing gate feeds back into the same session, then passes: one codon, success, costs of both rounds', async () => {
    const { client: c, root } = await serve(
      gatedPlan('    onVerifyFailure: { feedback: true, maxRounds: 2 }\n'),
      FIXABLE,
      ['--no-autostart'],
    );
    const done = c.next('codon.completed', (e) => e.data.codonId === 'one', 60_000);
    const idle = c.next('server.idle', (e) => e.data.lastEnded?.codonId === 'one', 60_000);
    c.send('codon.next');
    expect((await done).data).toMatchObject({ success: true });
    expect((await idle).data.nextCodonId).toBe('two');
    expect(readFileSync(join(root, 'result.txt'), 'utf8')).toBe('good');
    const history = await c.syncHistory();
    expect(of(history, 'codon.started').map((e) => e.data.codonId)).toEqual(['one']);
    const gates = of(history, 'verify.completed').map((e) => e.data);
    expect(gates).toMatchObject([
      { codonId: 'one', gate: 0, round: 0, passed: false, exitCode: 4, timedOut: false },
      { codonId: 'one', gate: 0, round: 1, passed: true, exitCode: 0 },
    ]);
    expect(gates[0]?.outputTail).toContain('GATE-SAYS: result.txt must say good');
    // The output was streamed as the gate ran, before its verify.completed.
    const streamed = history.findIndex(
      (e) => e.type === 'verify.output' && e.data.text.includes('GATE-SAYS'),
    );
    expect(streamed).toBeGreaterThan(-1);
    expect(streamed).toBeLessThan(history.findIndex((e) => e.type === 'verify.completed'));
    expect(
      of(history, 'info').some((e) =>
        /codon one: gate 1\/1 .* exited with code 4; feedback round 1 of 2/.test(e.data.message),
      ),
    ).toBe(true);
    // Both rounds' costs add up on the codon.
    const usage = of(history, 'token.usage').filter((e) => e.data.codonId === 'one');
    const completed = of(history, 'codon.completed')[0]?.data;
    expect(usage.length).toBeGreaterThanOrEqual(2);
    expect(completed?.cost).toBeGreaterThan(Math.max(...usage.map((u) => u.data.totalCost)) * 1.01);
  });

  it('a failing gate without feedback fails the codon: type verify, not retriable, the command, exit code and tail', async () => {
    const { client: c } = await serve(gatedPlan(), FIXABLE, ['--no-autostart']);
    const done = c.next('codon.completed', (e) => e.data.codonId === 'one', 60_000);
    const error = c.next('error', (e) => e.data.code === 'VERIFY_FAILED', 60_000);
    const idle = c.next('server.idle', (e) => e.data.lastEnded?.codonId === 'one', 60_000);
    c.send('codon.next');
    const completed = (await done).data;
    expect(completed).toMatchObject({
      success: false,
      exitStatus: { type: 'success' },
      failureReason: { type: 'verify', retriable: false },
    });
    const message = completed.failureReason?.message ?? '';
    expect(message).toContain(
      "`grep -q good result.txt || { echo 'GATE-SAYS: result.txt must say good'; exit 4; }`",
    );
    expect(message).toContain('exited with code 4');
    expect(message).toContain('GATE-SAYS: result.txt must say good');
    expect((await error).data).toMatchObject({ codon: 'one', severity: 'codon', context: 'verify' });
    expect((await idle).data).toMatchObject({ nextCodonId: 'one', lastEnded: { status: 'failed' } });
    const history = await c.syncHistory();
    expect(of(history, 'verify.started')).toHaveLength(1);
    expect(of(history, 'info').some((e) => e.data.message.includes('feedback round'))).toBe(false);
  });

  it('codon.forceStop during a gate ends its command (whole tree) and the codon is stopped; so does a shutdown', async () => {
    const marker = 40_000 + Math.floor(Math.random() * 5_000);
    const plan = `name: test
agent: builtin
codons:
  - id: one
    prompt: Do one.
    verify:
      - run: "(setsid sleep ${marker + 1} &); echo gate-running; sleep ${marker}"
    onVerifyFailure: { feedback: true }
`;
    const script = `turns:\n  - content: [{ text: "Done." }]\n`;
    const { client: c, server } = await serve(plan, script, ['--no-autostart']);
    const running = c.next('verify.output', (e) => e.data.text.includes('gate-running'), 60_000);
    const done = c.next('codon.completed', () => true, 30_000);
    const idle = c.next('server.idle', (e) => e.data.lastEnded !== undefined, 30_000);
    c.send('codon.next');
    await running;
    c.send('codon.forceStop', { reason: 'enough checking' });
    expect((await done).data).toMatchObject({
      success: false,
      failureReason: { message: expect.stringContaining('stopped by a client: enough checking') },
    });
    expect((await idle).data.lastEnded).toEqual({ codonId: 'one', status: 'stopped' });
    expect(pidsWith(`sleep ${marker}`)).toEqual([]);
    await waitFor(
      () => pidsWith(`sleep ${marker + 1}`).length === 0,
      'the detached child to be ended',
      5_000,
    );
    const history = await c.syncHistory();
    expect(of(history, 'verify.completed').map((e) => e.data)).toMatchObject([
      { passed: false, stopped: true },
    ]);
    // No feedback round after a stop.
    expect(of(history, 'info').some((e) => e.data.message.includes('feedback round'))).toBe(false);

    // The same gate again, then the server's shutdown.
    const again = c.next('verify.output', (e) => e.data.text.includes('gate-running'), 60_000);
    c.send('codon.next');
    await again;
    c.send('server.shutdown', { reason: 'going home' });
    expect((await server.exited).code).toBe(0);
    expect(pidsWith(`sleep ${marker}`)).toEqual([]);
  });

  it('a SIGKILLed server leaves a gate running; the restarted server ends it before anything else', async () => {
    const marker = 45_000 + Math.floor(Math.random() * 5_000);
    const plan = `name: test
agent: builtin
codons:
  - id: one
    prompt: Do one.
    verify:
      - run: "(setsid sleep ${marker + 1} &); echo gate-running; sleep ${marker}"
`;
    const {
      client: c,
      server,
      exec,
    } = await serve(plan, `turns:\n  - content: [{ text: "Done." }]\n`, ['--no-autostart']);
    const running = c.next('verify.output', (e) => e.data.text.includes('gate-running'), 60_000);
    c.send('codon.next');
    await running;
    server.kill('SIGKILL');
    await server.exited;
    expect(pidsWith(`sleep ${marker}`).length).toBeGreaterThan(0);
    const second = await startServer(join(exec, '..', 'plan.yaml'), exec, [
      '--no-autostart',
      '--scripted-provider',
      join(exec, '..', 'script.yaml'),
    ]);
    const again = await RibosomeClient.connect(second.url, { mode: 'readonly' });
    clients.push(again);
    await waitFor(() => pidsWith(`sleep ${marker}`).length === 0, 'the left gate to be ended', 10_000);
    // Its detached child too: it carries the gate's mark.
    expect(pidsWith(`sleep ${marker + 1}`)).toEqual([]);
  });

  it('a loop until verify stops once an iteration passes its gates; codon.next, progress and resumed agree', async () => {
    const plan = `name: test
agent: builtin
codons:
  - loop:
      id: fix
      iterations: 3
      until: verify
      codons:
        - id: a
          prompt: Do a.
        - id: b
          prompt: Do b.
          verify:
            - run: "test -f ok.txt || { echo not yet; exit 1; }"
  - id: after
    prompt: Do after.
`;
    const script = SECOND_TIME_OK;
    const { client: c, server, exec } = await serve(plan, script, ['--no-autostart']);
    const step = async (expected: string, status: 'completed' | 'failed', send: () => void) => {
      const done = c.next('codon.completed', (e) => e.data.codonId === expected, 60_000);
      const idle = c.next('server.idle', (e) => e.data.lastEnded?.codonId === expected, 60_000);
      send();
      expect((await done).data.success).toBe(status === 'completed');
      return (await idle).data;
    };
    expect((await step('a#0', 'completed', () => c.send('codon.next'))).nextCodonId).toBe('b#0');
    // The gate fails: that attempt is over, the next iteration is next.
    expect((await step('b#0', 'failed', () => c.send('codon.next'))).nextCodonId).toBe('a#1');
    expect((await step('a#1', 'completed', () => c.send('codon.next'))).nextCodonId).toBe('b#1');
    // Its gates pass: iteration 2 is passed over.
    const idle = await step('b#1', 'completed', () => c.send('codon.next'));
    expect(idle).toMatchObject({
      nextCodonId: 'after',
      message: expect.stringContaining('6 of 7 codons done'),
    });
    const last = await step('after', 'completed', () => c.send('codon.next'));
    expect(last.reason).toBe('all-codons-completed');
    const refused = c.next('error', (e) => e.data.code === 'NO_NEXT_CODON', 10_000);
    c.send('codon.next');
    await refused;
    const history = await c.syncHistory();
    expect(of(history, 'codon.started').map((e) => e.data.codonId)).toEqual([
      'a#0',
      'b#0',
      'a#1',
      'b#1',
      'after',
    ]);

    // A restarted server agrees: every codon settled.
    c.send('server.shutdown', { reason: 'restart' });
    expect((await server.exited).code).toBe(0);
    const second = await startServer(join(exec, '..', 'plan.yaml'), exec, [
      '--no-autostart',
      '--scripted-provider',
      join(exec, '..', 'script.yaml'),
    ]);
    const ready = await RibosomeClient.connect(second.url, { mode: 'readonly' });
    clients.push(ready);
    expect(ready.serverInfo.resumed).toMatchObject({ done: 7, total: 7, previousRunStatus: 'completed' });
    expect(ready.serverInfo.resumed?.nextCodonId).toBeUndefined();
    expect(second.stderr()).toContain('7 of 7 codons done');
    // Five codons and a restart: more than the default bound on a loaded machine.
  }, 90_000);

  it('with autostart, a loop until verify goes on after a failed attempt and past the loop once the gates pass', async () => {
    const plan = `name: test
agent: builtin
codons:
  - loop:
      id: fix
      iterations: 3
      until: verify
      codons:
        - id: b
          prompt: Do b.
          verify:
            - run: "test -f ok.txt || { echo not yet; exit 1; }"
  - id: after
    prompt: Do after.
`;
    const script = SECOND_TIME_OK;
    const { client: c } = await serve(plan, script);
    const over = (e: ServerEvent) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed';
    if (
      !c.handshake.eventHistory.some(
        (e) => e.type === 'server.idle' && e.data.reason === 'all-codons-completed',
      )
    )
      await c.next('server.idle', (e) => over(e), 90_000);
    const history = await c.syncHistory();
    expect(of(history, 'codon.completed').map((e) => `${e.data.codonId} ${e.data.success}`)).toEqual([
      'b#0 false',
      'b#1 true',
      'after true',
    ]);
  }, 90_000);
});
