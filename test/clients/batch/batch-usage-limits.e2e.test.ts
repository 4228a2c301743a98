import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliToEnd, journalRows, killAll, tempDir } from '../../helpers/server-process.ts';

/**
 * A batch's jobs on one credential wait together for a usage limit one of them meets
 * (docs/batches.md#usage-limits-jobs-on-one-credential-wait-together): a real `ribosome batch` of
 * two jobs, each a real `ribosome run` of the built-in agent on the scripted provider (one script; each
 * job's plan has its own first prompt). Job x meets the limit once job y's first codon is at work; y's
 * first codon ends once x has noted the limit, so y's second codon would start during it.
 */

const dir = tempDir();
afterAll(() => {
  killAll();
  dir.remove();
});

const plan = (first: string) => `name: shared
agent: builtin
model: claude-sonnet-4-5
onUsageLimit: { marginMs: 0 }
codons:
  - { id: one, name: One, prompt: ${first} }
  - { id: two, name: Two, prompt: Second. }
`;
const bash = (command: string) =>
  `      - content: [{ tool_use: { name: Bash, input: { command: ${JSON.stringify(command)} } } }]\n`;

describe('a batch whose jobs share a credential', () => {
  it('one job meets a usage limit: the other does not start its next codon against it, and both pass after the reset', {
    timeout: 150_000,
  }, async () => {
    const root = dir.path;
    const batchDir = join(root, 'pair');
    const limits = join(batchDir, 'usage-limits');
    const gate = join(root, 'y-at-work');
    writeFileSync(join(root, 'plan-x.yaml'), plan('First x.'));
    writeFileSync(join(root, 'plan-y.yaml'), plan('First y.'));
    const done = (text: string) => `      - content: [{ text: ${text} }]\n`;
    writeFileSync(
      join(root, 'script.yaml'),
      `tracks:
  - name: x
    match: { firstUser: "First x." }
    turns:
${bash(`while [ ! -e '${gate}' ]; do sleep 0.1; done`)}      - usageLimit: { resetsIn: 4 }
${done('One done.')}  - name: y
    match: { firstUser: "First y." }
    turns:
${bash(`touch '${gate}'; until ls '${limits}'/*.json >/dev/null 2>&1; do sleep 0.1; done`)}${done('One done.')}  - name: two
    match: { firstUser: "Second." }
    turns:
${done('Two done.')}turns: []
`,
    );
    writeFileSync(
      join(root, 'batch.yaml'),
      'name: pair\njobs: [{ id: x, plan: plan-x.yaml }, { id: y, plan: plan-y.yaml }]\nparallel: 2\n',
    );
    const ran = await cliToEnd(
      [
        ...['batch', join(root, 'batch.yaml'), '--dir', batchDir, '--headless', '--no-sandbox'],
        ...['--scripted-provider', join(root, 'script.yaml')],
      ],
      { RIBOSOME_AGENT_MAX_RETRIES: '0', ANTHROPIC_API_KEY: 'sk-ant-api03-batch-key-0123456789' },
      120_000,
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(readdirSync(limits)).toEqual([expect.stringMatching(/^builtin-[0-9a-f]{16}\.json$/)]);

    const jobs = ['x', 'y'].map((id) => {
      const events = journalRows(join(batchDir, 'jobs', id));
      return {
        failed: events
          .filter((e) => e.type === 'codon.completed' && e.data.success === false)
          .map((e) => e.data.codonId),
        waited: events.filter((e) => e.type === 'usageLimit.waiting').map((e) => e.data.codonId),
      };
    });
    // x met it: a failed attempt of its first codon, then a wait for the reset.
    // y: its first codon ran meanwhile; its second waited, without a failed attempt.
    expect(jobs).toEqual([
      { failed: ['one'], waited: ['one'] },
      { failed: [], waited: ['two'] },
    ]);
  });
});
