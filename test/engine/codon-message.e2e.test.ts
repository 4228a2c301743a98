/**
 * codon.message end to end (docs/steering.md): a real server on the scripted
 * provider, each agent a real process. The provider answers from a track matched on the message's
 * text, so a file the agent then writes proves the request after the message carried it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeBinary } from '../../src/agents/claude-code/claude-binary.ts';
import { CommandError, RibosomeClient } from '../../src/core/client/index.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { writeTurns } from '../helpers/plans.ts';

const { serve, clients } = e2eResources();
const TIMEOUT = 180_000;
/** Generous: each Claude Code start takes seconds on a loaded machine. */
const WAIT = 120_000;

/**
 * The agent's first request runs Bash that waits for the file `go` (the message is sent while it
 * runs); the message's track writes mid.txt; the final answer takes a while (the second message is
 * sent during it, after the agent's last tool), and that message's track writes last.txt in a new turn.
 */
const STEERED = `tracks:
  - name: claude-code-title
    match: { system: "Generate a concise, sentence-case title" }
    turns: []
    whenExhausted: { content: [{ text: '{"title": "Scripted session"}' }] }
  - name: tool-less
    match: { tools: false }
    turns: []
    whenExhausted: { content: [{ text: OK. }] }
  - name: mid
    match: { lastUser: STEER-MID }
    turns:
      - content:
          - text: Heard you; writing mid.txt.
          - tool_use: { name: Write, input: { file_path: mid.txt, content: mid } }
  - name: last
    match: { lastUser: STEER-LAST }
    turns:
      - content:
          - text: Heard you again; writing last.txt.
          - tool_use: { name: Write, input: { file_path: last.txt, content: last } }
turns:
  - content:
      - text: Waiting for go.
      - tool_use: { name: Bash, input: { command: "while [ ! -f go ]; do sleep 0.1; done; echo waited", timeout: 600000 } }
  - content: [{ text: Finishing. }]
    delayMs: 6000
  - content: [{ text: All done. }]
`;

const plan = (agent: string) =>
  `name: steer\nagent: ${agent}\nmodel: claude-sonnet-4-5\ncodons:\n  - id: one\n    name: One\n    prompt: Do one.\n`;

const messages = (events: readonly ServerEvent[]) =>
  events.flatMap((e) => (e.type === 'codon.message' ? [e.data] : []));

async function refusal(promise: Promise<unknown>): Promise<CommandError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CommandError);
  return error as CommandError;
}

/** Both messages reach the agent: one mid-tool, one after its last tool call, which runs a new turn. */
async function steer(agent: 'builtin' | 'claude-code') {
  const { client, root } = await serve(plan(agent), STEERED, ['--no-autostart'], {
    CLAUDE_CODE_MAX_RETRIES: '0',
  });
  const idle = await refusal(client.sendMessage('STEER-EARLY: nobody listens'));
  expect(idle.code).toBe('NO_CODON_RUNNING');
  expect(idle.message).toContain('no codon is running');

  const waiting = client.next('assistant.action', (e) => e.data.toolName === 'Bash', WAIT);
  client.send('codon.next');
  await waiting;
  const mid = await client.sendMessage('STEER-MID: also write mid.txt', { timeoutMs: WAIT });
  expect(mid.data).toMatchObject({
    codonId: 'one',
    from: { kind: 'client', clientId: client.clientId },
    delivery: 'live',
  });

  // The message's track answers the request after the Bash result: its Write is the agent's last tool.
  const wrote = client.next('tool.result', (e) => e.data.toolName === 'Write', WAIT);
  writeFileSync(join(root, 'go'), '');
  await wrote;
  // The agent now waits for its final answer: the message comes after its last tool call.
  const completed = client.next('codon.completed', () => true, WAIT);
  const last = await client.sendMessage('STEER-LAST: then write last.txt', { timeoutMs: WAIT });
  expect(last.data).toMatchObject({ codonId: 'one', delivery: 'live' });
  expect((await completed).data).toMatchObject({ success: true, exitStatus: { type: 'success' } });
  expect(readFileSync(join(root, 'mid.txt'), 'utf8')).toBe('mid');
  expect(readFileSync(join(root, 'last.txt'), 'utf8')).toBe('last');

  const finished = await refusal(client.sendMessage('STEER-LATE: too late'));
  expect(finished.code).toBe('NO_CODON_RUNNING');

  const history = await client.syncHistory();
  expect(messages(history)).toEqual([
    { codonId: 'one', text: 'STEER-MID: also write mid.txt', from: mid.data.from, delivery: 'live' },
    { codonId: 'one', text: 'STEER-LAST: then write last.txt', from: mid.data.from, delivery: 'live' },
  ]);
  // The last message ran a turn of its own, after the agent's answer to the first request.
  const said = history.flatMap((e) =>
    e.type === 'assistant.action' && e.data.action === 'message' ? [e.data.content] : [],
  );
  expect(said.indexOf('Finishing.')).toBeGreaterThanOrEqual(0);
  expect(said.indexOf('Heard you again; writing last.txt.')).toBeGreaterThan(said.indexOf('Finishing.'));
  expect(said.at(-1)).toBe('All done.');
  return history;
}

describe('codon.message (steering a running agent)', () => {
  it('the built-in agent: a message sent mid-tool joins its next request, one sent after its last tool runs a new turn', {
    timeout: TIMEOUT,
  }, async () => {
    await steer('builtin');
  });

  it.skipIf(!existsSync(claudeBinary()))(
    'the real Claude Code CLI: the same two messages, through its stream-json input',
    { timeout: TIMEOUT },
    async () => {
      await steer('claude-code');
    },
  );

  it('refuses while rig setup runs (saying so), and readonly clients whatever runs', {
    timeout: TIMEOUT,
  }, async () => {
    const rigPlan = `name: rig\nagent: builtin\ncodons:\n  - id: one\n    name: One\n    prompt: Do one.\n    rigSetup:\n      - run: "echo rig-waiting; while [ ! -f rig-go ]; do sleep 0.1; done"\n`;
    const { client, server, root } = await serve(rigPlan, `turns:\n${writeTurns('one.txt', 'one')}`, [
      '--no-autostart',
    ]);
    const viewer = await RibosomeClient.connect(server.url, { mode: 'readonly' });
    clients.push(viewer);
    const rigRuns = client.next('info', (e) => e.data.message.includes('rig-waiting'), WAIT);
    client.send('codon.next');
    await rigRuns;
    const preparing = await refusal(client.sendMessage('too early'));
    expect(preparing.code).toBe('NO_CODON_RUNNING');
    expect(preparing.message).toContain('codon one is still preparing');
    const readonly = await refusal(viewer.sendMessage('let me in'));
    expect(readonly.code).toBe('INSUFFICIENT_PERMISSIONS');
    // Blanks are not a message (the built-in agent would answer nothing to them: trial 17 H1).
    const blank = await refusal(client.sendMessage(' \n\t '));
    expect(blank.code).toBe('INVALID_COMMAND');
    expect(blank.message).toContain('must hold more than white space');
    const completed = client.next('codon.completed', () => true, WAIT);
    writeFileSync(join(root, 'rig-go'), '');
    expect((await completed).data.success).toBe(true);
    expect(messages(await client.syncHistory())).toEqual([]);
  });
});
