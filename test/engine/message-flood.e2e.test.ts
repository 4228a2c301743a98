/**
 * A flood of codon.message (docs/steering.md): past what the agent has not taken up
 * (limits.messageQueueMessages) a message gets MESSAGE_QUEUE_FULL, past a client's allowance
 * (limits.messageBurst, then limits.messageRate) RATE_LIMITED; neither is journaled, and messages
 * within the bounds still reach the agent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { bounded, journalRows, tempDir } from '../helpers/server-process.ts';

const { serve, clients, temps } = e2eResources();
const WAIT = 60_000;

/** Bash waits for `go` while the flood comes (nothing is taken up), then for `go2` after the next request. */
const SCRIPT = `turns:
  - content:
      - text: Waiting for go.
      - tool_use: { name: Bash, input: { command: "while [ ! -f go ]; do sleep 0.1; done; echo waited", timeout: 600000 } }
  - content:
      - text: Read them; waiting for go2.
      - tool_use: { name: Bash, input: { command: "while [ ! -f go2 ]; do sleep 0.1; done; echo waited", timeout: 600000 } }
  - content: [{ text: All done. }]
`;

const PLAN = 'name: flood\nagent: builtin\ncodons:\n  - id: one\n    name: One\n    prompt: Do one.\n';

/** Sends every text without waiting; resolves with how each was answered (accepted, or its error code). */
async function flood(client: RibosomeClient, texts: readonly string[]): Promise<string[]> {
  const answers = new Map<string, string>();
  const byId = new Map<string, string>();
  let settle: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const off = client.onEvent((e) => {
    if (
      e.type === 'codon.message' &&
      e.data.from.kind === 'client' &&
      e.data.from.clientId === client.clientId
    )
      answers.set(e.data.text, 'accepted');
    if (e.type === 'error' && e.data.commandId && byId.has(e.data.commandId))
      answers.set(byId.get(e.data.commandId) ?? '', e.data.code ?? 'error');
    if (answers.size === texts.length) settle();
  });
  for (const text of texts) byId.set(client.send('codon.message', { text }), text);
  await bounded(all, WAIT);
  off();
  return texts.map((t) => answers.get(t) ?? 'unanswered');
}

describe('a flood of codon.message', () => {
  it('is refused past the queue bound and the rate limit, to the sender only; messages within them reach the agent', async () => {
    const t = tempDir();
    temps.push(t);
    const config = join(t.path, 'config.yaml');
    // The queue's default bound (100); a burst above it and a rate too slow to refill during the
    // test, so which bound answers each message does not depend on timing.
    writeFileSync(config, 'limits:\n  messageBurst: 150\n  messageRate: 0.001\n');
    const { client, server, exec, root } = await serve(PLAN, SCRIPT, ['--no-autostart', '--config', config]);
    const waiting = client.next('assistant.action', (e) => e.data.toolName === 'Bash', WAIT);
    client.send('codon.next');
    await waiting;

    const texts = Array.from({ length: 200 }, (_, i) => `FLOOD ${i} ${'x'.repeat(1000)}`);
    const answers = await flood(client, texts);
    expect(answers.slice(0, 100)).toEqual(Array(100).fill('accepted'));
    expect(answers.slice(100, 150)).toEqual(Array(50).fill('MESSAGE_QUEUE_FULL'));
    expect(answers.slice(150)).toEqual(Array(50).fill('RATE_LIMITED'));
    const full = client.received.find((e) => e.type === 'error' && e.data.code === 'MESSAGE_QUEUE_FULL');
    expect(full?.type === 'error' && full.data.message).toContain(
      'has not taken up the 100 messages (at most 100, limits.messageQueueMessages)',
    );

    // Another client is not limited by the first one's rate; the queue still is full.
    const other = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
    clients.push(other);
    await expect(other.sendMessage('ONE MORE')).rejects.toMatchObject({ code: 'MESSAGE_QUEUE_FULL' });

    // The agent takes the hundred up with its next request: the queue has room again.
    const read = client.next(
      'assistant.action',
      (e) => e.data.content === 'Read them; waiting for go2.',
      WAIT,
    );
    writeFileSync(join(root, 'go'), '');
    await read;
    const after = await other.sendMessage('AFTER THE FLOOD', { timeoutMs: WAIT });
    expect(after.data).toMatchObject({ codonId: 'one', delivery: 'live' });
    const completed = client.next('codon.completed', () => true, WAIT);
    writeFileSync(join(root, 'go2'), '');
    expect((await completed).data.success).toBe(true);

    // Only what was accepted is journaled; the refusals went to their sender alone.
    const rows = journalRows(exec);
    const journaled = rows.filter((r) => r.type === 'codon.message').map((r) => String(r.data.text));
    expect(journaled).toEqual([...texts.slice(0, 100), 'AFTER THE FLOOD']);
    expect(
      rows.filter(
        (r) => r.type === 'error' && ['MESSAGE_QUEUE_FULL', 'RATE_LIMITED'].includes(String(r.data.code)),
      ),
    ).toEqual([]);
  }, 120_000);
});
