import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstCallLimitedClaude } from '../../helpers/fake-claude-usage-limit.ts';
import { cliToEnd, journalRows, killAll, tempDir } from '../../helpers/server-process.ts';

/**
 * A batch's jobs on one credential wait together for a usage limit one of them meets
 * (docs/batches.md#usage-limits-jobs-on-one-credential-wait-together): a real `ribosome batch` of
 * two jobs, each a real `ribosome run`. The limit comes from a fake claude
 * (test/helpers/fake-claude-usage-limit.ts) until the scripted provider plays one for the built-in agent.
 */

const dir = tempDir();
afterAll(() => {
  killAll();
  dir.remove();
});

const PLAN = `name: shared
agent: claude-code
model: claude-sonnet-4-5
onUsageLimit: { marginMs: 0 }
codons:
  - { id: one, name: One, prompt: First. }
  - { id: two, name: Two, prompt: Second. }
`;

describe('a batch whose jobs share a credential', () => {
  it('one job meets a usage limit: the other does not start its next codon against it, and both pass after the reset', {
    timeout: 150_000,
  }, async () => {
    const root = dir.path;
    writeFileSync(join(root, 'plan.yaml'), PLAN);
    writeFileSync(join(root, 'script.yaml'), 'turns: []\n');
    writeFileSync(
      join(root, 'batch.yaml'),
      'name: pair\ndefaults: { plan: plan.yaml }\njobs: [{ id: x }, { id: y }]\nparallel: 2\n',
    );
    const batchDir = join(root, 'pair');
    const limits = join(batchDir, 'usage-limits');
    const claude = firstCallLimitedClaude(root, { limits });
    const ran = await cliToEnd(
      [
        ...['batch', join(root, 'batch.yaml'), '--dir', batchDir, '--headless', '--no-sandbox'],
        ...['--scripted-provider', join(root, 'script.yaml')],
      ],
      { RIBOSOME_CLAUDE_BIN: claude, ANTHROPIC_API_KEY: 'sk-ant-api03-batch-key-0123456789' },
      120_000,
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(readdirSync(limits)).toEqual([expect.stringMatching(/^claude-code-[0-9a-f]{16}\.json$/)]);

    const jobs = ['x', 'y'].map((id) => {
      const events = journalRows(join(batchDir, 'jobs', id));
      return {
        failed: events
          .filter((e) => e.type === 'codon.completed' && e.data.success === false)
          .map((e) => e.data.codonId),
        waited: events.filter((e) => e.type === 'usageLimit.waiting').map((e) => e.data.codonId),
      };
    });
    // The job that met it: a failed attempt of its first codon, then a wait for the reset.
    expect(jobs).toContainEqual({ failed: ['one'], waited: ['one'] });
    // The other: its first codon ran meanwhile; its second waited, without a failed attempt.
    expect(jobs).toContainEqual({ failed: [], waited: ['two'] });
  });
});
