/**
 * A stop we asked for reads as one (trial 17 L7): after codon.forceStop, codon.completed's
 * exitStatus is `killed` by the SIGTERM the engine sent, whichever agent, however it ended while
 * handling it (the built-in agent exits 1 or 143, Claude Code 143). Real `ribosome run` processes.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeBinary } from '../../src/agents/claude-code/claude-binary.ts';
import type { RibosomeClient } from '../../src/core/client/index.ts';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { stuckTurns } from '../helpers/plans.ts';
import { pidsWith, waitFor } from '../helpers/processes.ts';
import { tempDir } from '../helpers/server-process.ts';

const { serve, temps } = e2eResources();
const TIMEOUT = 180_000;
const WAIT = 120_000;

const plan = (agent: string) =>
  `name: stop\nagent: ${agent}\nmodel: claude-sonnet-4-5\ncodons:\n  - id: stuck\n    name: Stuck\n    prompt: Wait.\n`;

/** Claude Code's side requests (a title, tool-less calls) answered, the agent's first request a long Bash. */
const script = (m: number) => `tracks:
  - name: claude-code-title
    match: { system: "Generate a concise, sentence-case title" }
    turns: []
    whenExhausted: { content: [{ text: '{"title": "Scripted session"}' }] }
  - name: tool-less
    match: { tools: false }
    turns: []
    whenExhausted: { content: [{ text: OK. }] }
turns:
${stuckTurns(m)}`;

async function forceStopped(client: RibosomeClient, running: () => boolean) {
  client.send('codon.start', { codonId: 'stuck' });
  await waitFor(running, 'the agent to be at work', WAIT);
  const completed = client.next('codon.completed', () => true, WAIT);
  const error = client.next('error', (e) => e.data.severity === 'codon', WAIT);
  client.send('codon.forceStop', { reason: 'enough' });
  return { completed: (await completed).data, error: (await error).data };
}

describe('codon.completed after codon.forceStop', () => {
  it('the built-in agent: killed by SIGTERM', { timeout: TIMEOUT }, async () => {
    const m = 40_000 + Math.floor(Math.random() * 5000);
    const { client } = await serve(plan('builtin'), `turns:\n${stuckTurns(m)}`, ['--no-autostart']);
    const { completed, error } = await forceStopped(client, () => pidsWith(`sleep ${m}`).length > 0);
    expect(completed).toMatchObject({ success: false, exitStatus: { type: 'killed', signal: 'SIGTERM' } });
    // Our own code for a codon that did not end well (the spec defines none for it): said in the message.
    expect(error).toMatchObject({ code: 'CODON_FAILED', codon: 'stuck' });
    expect(error.message).toContain('was stopped: stopped by a client: enough');
  });

  it('a fake claude that exits 143 on SIGTERM: killed by SIGTERM', { timeout: TIMEOUT }, async () => {
    const t = tempDir();
    temps.push(t);
    const fake = join(t.path, 'claude');
    writeFileSync(
      fake,
      `#!/bin/sh\ntrap 'exit 143' TERM\necho '{"type":"system","subtype":"init","session_id":"s1"}'\nwhile :; do sleep 0.1; done\n`,
    );
    chmodSync(fake, 0o755);
    const { client } = await serve(plan('claude-code'), 'turns: []\n', ['--no-autostart'], {
      RIBOSOME_CLAUDE_BIN: fake,
    });
    const { completed } = await forceStopped(client, () => pidsWith(fake).length > 0);
    expect(completed).toMatchObject({ success: false, exitStatus: { type: 'killed', signal: 'SIGTERM' } });
  });

  it.skipIf(!existsSync(claudeBinary()))(
    'the real Claude Code CLI: killed by SIGTERM',
    { timeout: TIMEOUT },
    async () => {
      const m = 45_000 + Math.floor(Math.random() * 5000);
      const { client } = await serve(plan('claude-code'), script(m), ['--no-autostart'], {
        CLAUDE_CODE_MAX_RETRIES: '0',
      });
      const { completed } = await forceStopped(client, () => pidsWith(`sleep ${m}`).length > 0);
      expect(completed).toMatchObject({ success: false, exitStatus: { type: 'killed', signal: 'SIGTERM' } });
    },
  );
});
