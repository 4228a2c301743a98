import { describe, expect, it } from 'vitest';
import {
  runSandbox,
  sandboxFlag,
  sandboxPlaceProblems,
} from '../../../../src/clients/cli/run/sandbox-start.ts';
import type { SandboxSupport } from '../../../../src/platform/sandbox/index.ts';
import { loadText, yaml } from '../../../plan/helpers.ts';

/** The start of `ribosome run` decides where each codon's agent runs (docs/agents.md#the-sandbox). */

const supported: SandboxSupport = { ok: true, bwrap: 'bubblewrap 0.11', socat: 'socat 1.8' };
const missing: SandboxSupport = {
  ok: false,
  missing: ['bubblewrap'],
  why: 'bwrap not found',
  install: 'apt-get install bubblewrap',
};

async function planOf(...lines: string[]) {
  const loaded = await loadText(yaml('name: x', ...lines));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
  return loaded.plan;
}

describe('the run-start decision', () => {
  it('--sandbox takes auto, on or off; --no-sandbox is off', () => {
    expect(sandboxFlag(false)).toEqual({ ok: true, mode: 'off' });
    expect(sandboxFlag('on')).toEqual({ ok: true, mode: 'on' });
    expect(sandboxFlag(undefined)).toEqual({ ok: true });
    expect(sandboxFlag('yes')).toMatchObject({
      ok: false,
      code: 2,
      text: expect.stringContaining('auto, on or off'),
    });
  });

  it('on without support refuses the run (exit 2), saying what to install', async () => {
    const plan = await planOf('sandbox: on', 'codons: [{ id: a, prompt: go }]');
    const refused = runSandbox(plan, undefined, undefined, missing);
    expect(refused).toMatchObject({ ok: false, code: 2 });
    expect(!refused.ok && refused.text).toContain('apt-get install bubblewrap');
    // The command line's mode wins.
    expect(runSandbox(plan, undefined, 'off', missing).ok).toBe(true);
  });

  it('auto without support runs unconfined with one warning; with support, confined', async () => {
    const plan = await planOf('codons: [{ id: a, prompt: go }, { id: b, prompt: go, sandbox: off }]');
    const without = runSandbox(plan, undefined, undefined, missing);
    if (!without.ok) throw new Error(without.text);
    expect(without.value.warning).toMatch(/^warning: .*unconfined.*apt-get install bubblewrap/);
    expect(without.value.sandboxOf(plan.codons[0]!)).toBeUndefined();
    const withIt = runSandbox(plan, { network: { allow: ['registry.npmjs.org'] } }, undefined, supported);
    if (!withIt.ok) throw new Error(withIt.text);
    expect(withIt.value.warning).toBeUndefined();
    expect(withIt.value.sandboxOf(plan.codons[0]!)).toMatchObject({
      mode: 'auto',
      network: { allow: ['registry.npmjs.org'] },
    });
    expect(withIt.value.sandboxOf(plan.codons[1]!)).toBeUndefined();
  });

  it("a confined codon's path that holds the placed execution's .ribosome refuses the run", async () => {
    const plan = await planOf(
      'sandbox: { mode: on, readOnly: [/w/runs] }',
      'codons: [{ id: a, prompt: go }]',
    );
    const sandbox = runSandbox(plan, undefined, undefined, supported);
    if (!sandbox.ok) throw new Error(sandbox.text);
    const refusal = sandboxPlaceProblems(plan, sandbox.value, { home: '/home/u', executionDir: '/w/runs/x' });
    expect(refusal).toMatchObject({ code: 2, text: expect.stringContaining('SANDBOX_PATH_IN_HISTORY') });
    expect(
      sandboxPlaceProblems(plan, sandbox.value, { home: '/home/u', executionDir: '/elsewhere/x' }),
    ).toBeUndefined();
  });
});
