import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../helpers/e2e-resources.ts';
import { runFakeClaude } from '../helpers/fake-claude.ts';
import { writeTurns } from '../helpers/plans.ts';
import { tempDir } from '../helpers/server-process.ts';

/** `systemPrompt` and `appendSystemPrompt` on the plan and a codon reach both agents. */

const { temps, serve } = e2eResources();

describe('system prompts', () => {
  it('the built-in agent: the plan appends to its default prompt; a codon replaces it and appends its own', async () => {
    const plan = `name: prompts
agent: builtin
appendSystemPrompt: "House rule: tabs, never spaces."
codons:
  - id: one
    prompt: Do one.
  - id: two
    prompt: Do two.
    systemPrompt: "You are a careful release engineer."
    appendSystemPrompt: "Release rule: sign every tag."
`;
    // Each codon's turns are only served when its system prompt is what the plan says: codon one's is
    // the built-in default (it ends "what you changed.") with the plan's text after it.
    const script = `tracks:
  - name: one
    match: { firstUser: "Do one.", system: "what you changed.\\n\\nHouse rule: tabs, never spaces." }
    turns:
${writeTurns('one.txt', 'ok').replace(/^/gm, '    ')}
  - name: two
    match: { firstUser: "Do two.", system: "You are a careful release engineer.\\n\\nRelease rule: sign every tag." }
    turns:
${writeTurns('two.txt', 'ok').replace(/^/gm, '    ')}
turns:
  - error: { status: 400, message: "unexpected system prompt" }
    repeat: 10
`;
    const { client, root } = await serve(plan, script, [], { RIBOSOME_AGENT_MAX_RETRIES: '0' });
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    expect(readFileSync(join(root, 'one.txt'), 'utf8')).toBe('ok');
    expect(readFileSync(join(root, 'two.txt'), 'utf8')).toBe('ok');
    const ends = (await client.syncHistory()).filter((e) => e.type === 'codon.completed');
    expect(ends.map((e) => e.type === 'codon.completed' && e.data.success)).toEqual([true, true]);
  });

  it('Claude Code gets --system-prompt and --append-system-prompt', async () => {
    const t = tempDir();
    temps.push(t);
    const argsFile = join(t.path, 'args.txt');
    await runFakeClaude({
      dir: t.path,
      body: `printf '%s\\n' "$@" > '${argsFile}'`,
      start: { systemPrompt: 'Replace it.', appendSystemPrompt: 'And add this.' },
    });
    const args = readFileSync(argsFile, 'utf8').trimEnd().split('\n');
    expect(args.slice(args.indexOf('--system-prompt'), args.indexOf('--system-prompt') + 2)).toEqual([
      '--system-prompt',
      'Replace it.',
    ]);
    expect(
      args.slice(args.indexOf('--append-system-prompt'), args.indexOf('--append-system-prompt') + 2),
    ).toEqual(['--append-system-prompt', 'And add this.']);
  });
});
