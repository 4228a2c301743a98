/**
 * Messages that reach the real Claude Code CLI while it writes its final answer
 * (docs/steering.md): it takes them up after its `result`, as a new turn. A text starting with `/` is
 * text for the model there, never one of the CLI's own commands (trial 17b H1: `/clear` swapped the
 * session and was never printed back, so the codon hung); several messages it takes up together
 * (printed back as one) all count as taken (H2). Real processes: `ribosome run`, Claude Code, and a
 * scripted provider this test runs (every request is seen).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { claudeBinary } from '../../src/agents/claude-code/claude-binary.ts';
import { RibosomeClient } from '../../src/core/client/index.ts';
import type { ServerEvent } from '../../src/core/protocol/index.ts';
import type { RecordedRequest } from '../../src/llm/mock-provider/server.ts';
import { type MockProvider, startMockProvider } from '../../src/llm/mock-provider/server.ts';
import { waitFor } from '../helpers/processes.ts';
import { killAll, startServer, tempDir } from '../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
const clients: RibosomeClient[] = [];
const providers: MockProvider[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  killAll();
  await Promise.all(providers.splice(0).map((p) => p.stop()));
});
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const TIMEOUT = 240_000;
/** Generous: each Claude Code start takes seconds on a loaded machine. */
const WAIT = 120_000;

const reply = (text: string) => ({ content: [{ text }] });

/**
 * The agent runs one Bash, then its final answer, which the provider holds back long enough for the
 * test to send its messages while the agent waits for it; what comes after (the messages' turns) is
 * answered "Noted.".
 */
async function steerFinalAnswer(texts: string[]) {
  const t = tempDir();
  temps.push(t);
  writeFileSync(
    join(t.path, 'plan.yaml'),
    'name: late\nagent: claude-code\nmodel: claude-sonnet-4-5\ncodons:\n  - id: one\n    name: One\n    prompt: Do one.\n',
  );
  const provider = await startMockProvider({
    script: {
      tracks: [
        {
          name: 'claude-code-title',
          match: { system: 'Generate a concise, sentence-case title' },
          turns: [],
          whenExhausted: reply('{"title": "Scripted session"}'),
        },
        { name: 'tool-less', match: { tools: false }, turns: [], whenExhausted: reply('OK.') },
      ],
      turns: [
        {
          content: [{ text: 'Working.' }, { tool_use: { name: 'Bash', input: { command: 'echo worked' } } }],
        },
        { content: [{ text: 'Finishing.' }], delayMs: 8000 },
      ],
      whenExhausted: reply('Noted.'),
    },
  });
  providers.push(provider);
  const exec = join(t.path, 'exec');
  mkdirSync(exec, { recursive: true });
  const server = await startServer(
    join(t.path, 'plan.yaml'),
    exec,
    ['--provider-base-url', provider.url, '--no-autostart'],
    30_000,
    { ANTHROPIC_API_KEY: 'test-key', CLAUDE_CODE_MAX_RETRIES: '0' },
  );
  const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite' });
  clients.push(client);
  const events: ServerEvent[] = [];
  client.onEvent((e) => events.push(e));

  const agentRequests = () => provider.requests.filter((q) => q.track === 'default');
  const completed = client.next('codon.completed', () => true, WAIT);
  client.send('codon.next');
  // The request for the final answer has arrived: the provider holds it while the messages are sent.
  await waitFor(() => agentRequests().some((q) => q.position === 1), 'the final answer request', WAIT);
  for (const text of texts) {
    const sent = await client.sendMessage(text, { timeoutMs: WAIT });
    expect(sent.data.delivery).toBe('live');
  }
  const done = await completed;
  const later = agentRequests().filter((q) => q.position === null || q.position > 1);
  return { done, events, later };
}

type Message = { role: string; content: string | Array<{ type: string; text?: string }> };

/** The texts of a request's last user message. */
function lastUserTexts(request: RecordedRequest): string[] {
  const messages = (request.body as { messages: Message[] }).messages;
  const last = messages.findLast((m) => m.role === 'user');
  if (!last) return [];
  if (typeof last.content === 'string') return [last.content];
  return last.content.flatMap((block) => (block.type === 'text' && block.text ? [block.text] : []));
}

/** Whether the request still holds the conversation before the messages (its session was not cleared). */
const keepsSession = (request: RecordedRequest) => JSON.stringify(request.body).includes('Finishing.');

describe.skipIf(!existsSync(claudeBinary()))('Claude Code: messages sent during its final answer', () => {
  it('"/clear" and "/cost" reach the model as text, in the same session, and the codon completes', {
    timeout: TIMEOUT,
  }, async () => {
    const { done, events, later } = await steerFinalAnswer(['/clear', '/cost']);
    expect(done.data).toMatchObject({ codonId: 'one', success: true, exitStatus: { type: 'success' } });
    // Every later request of the agent is the same conversation, and the model got each text as it was sent.
    expect(later.length).toBeGreaterThan(0);
    expect(later.every(keepsSession)).toBe(true);
    const told = later.flatMap(lastUserTexts);
    expect(told).toContain('/clear');
    expect(told).toContain('/cost');
    // No safety net was needed: the agent printed both back.
    expect(events.filter((e) => e.type === 'info' && e.data.message.includes('did not take up'))).toEqual([]);
  });

  it('two messages it takes up together: the next request carries both, and the codon completes', {
    timeout: TIMEOUT,
  }, async () => {
    const { done, events, later } = await steerFinalAnswer(['LATE one', 'LATE two']);
    expect(done.data).toMatchObject({ codonId: 'one', success: true, exitStatus: { type: 'success' } });
    expect(later[0] && lastUserTexts(later[0])).toEqual(['LATE one', 'LATE two']);
    expect(events.filter((e) => e.type === 'info' && e.data.message.includes('did not take up'))).toEqual([]);
  });
});
