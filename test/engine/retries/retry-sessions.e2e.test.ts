import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';

/**
 * An automatic retry starts from the codon's start: its files (restored from the start checkpoint) and,
 * for a `continue-previous` codon, its conversation (the previous codon's session as that codon left it,
 * not with the failed attempt's tool calls appended, whose effects the restore has undone).
 */

const { serve } = e2eResources();

describe('a retried continue-previous codon', () => {
  it("resumes the previous codon's conversation without the failed attempt's turns", async () => {
    const plan = `name: sessions
agent: builtin
codons:
  - id: zero
    prompt: Do zero.
  - id: one
    prompt: Do one.
    continuation: continue-previous
    onFailure: { retry: { maxAttempts: 2, backoffMs: 50, maxBackoffMs: 1000 } }
`;
    // zero writes zero.txt; one's attempt 1 writes junk.txt and then the provider fails; attempt 2 ends.
    const script = `turns:
  - content:
      - tool_use: { name: Write, input: { file_path: zero.txt, content: "z" } }
  - content: [{ text: zero done }]
  - content:
      - tool_use: { name: Write, input: { file_path: junk.txt, content: "junk" } }
  - error: { status: 500 }
  - content: [{ text: one done }]
`;
    const { client, exec, root } = await serve(plan, script, [], { RIBOSOME_AGENT_MAX_RETRIES: '0' });
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    expect(readdirSync(root).sort()).toEqual(['ribosome-data', 'zero.txt']);
    // The conversation attempt 2 had: the session the agent reported last for codon one.
    const sessions = join(exec, '.ribosome/agents/sessions');
    const ended = readdirSync(sessions)
      .map((f) => readFileSync(join(sessions, f), 'utf8'))
      .filter((text) => text.includes('one done'));
    expect(ended).toHaveLength(1);
    expect(ended[0]).toContain('zero done');
    expect(ended[0]).not.toContain('junk.txt');
    // zero's own conversation is as zero left it, for whatever continues it next.
    const zero = readdirSync(sessions)
      .map((f) => readFileSync(join(sessions, f), 'utf8'))
      .filter((text) => text.includes('zero done') && !text.includes('Do one.'));
    expect(zero).toHaveLength(1);
  });
});

describe('a refused command during the wait of a retry', () => {
  it('changes nothing: the retry still runs, and says so', async () => {
    const plan = `name: refused
agent: builtin
codons:
  - id: one
    prompt: Do one.
    onFailure: { retry: { maxAttempts: 2, backoffMs: 4000, maxBackoffMs: 4000 } }
`;
    const script = `turns:
  - error: { status: 500 }
  - content:
      - tool_use: { name: Write, input: { file_path: one.txt, content: "ok" } }
  - content: [{ text: one done }]
`;
    const { client, root } = await serve(plan, script, [], { RIBOSOME_AGENT_MAX_RETRIES: '0' });
    await client.next('info', (e) => e.data.message.includes('attempt 2 of 2 in'), 30_000);
    // A mistyped codon id: refused, as it should be.
    const refused = await client.request('codon.start', { codonId: 'nope' }, 'codon.started').then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/^UNKNOWN_CODON/);
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 20_000);
    const history = await client.syncHistory();
    const attempts = history.flatMap((e) =>
      e.type === 'codon.started' && e.data.codonId === 'one' ? [e.data.attempt] : [],
    );
    expect(attempts).toEqual([1, 2]);
    expect(
      history.some(
        (e) =>
          e.type === 'info' &&
          /codon.start was refused; the retry of codon one \(attempt 2 of 2\) goes on/.test(e.data.message),
      ),
    ).toBe(true);
    expect(readdirSync(root).sort()).toEqual(['one.txt', 'ribosome-data']);
  });
});
