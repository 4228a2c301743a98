import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { checkSandboxPaths } from '../../src/plan/check-sandbox.ts';
import type { PlanProblem } from '../../src/plan/problems.ts';
import { declaredSandbox, effectiveSandbox } from '../../src/plan/sandbox-resolve.ts';
import { loadText, problemsOf, yaml } from './helpers.ts';

/** The `sandbox` setting (docs/agents.md#the-sandbox): how the layers combine, and the paths refused. */

const plan = (...lines: string[]) =>
  yaml('name: x', ...lines, 'codons:', '  - id: a', '    prompt: go', '  - id: b', '    prompt: go');

function only(problems: readonly PlanProblem[], code: string, path: string): PlanProblem {
  const found = problems.filter((p) => p.code === code && p.path === path);
  expect(found, JSON.stringify(problems, null, 2)).toHaveLength(1);
  expect(found[0]!.severity).toBe('error');
  expect(found[0]!.hint.length).toBeGreaterThan(0);
  return found[0]!;
}

describe('effective settings', () => {
  it('mode: command line over codon over plan over config file over auto', () => {
    const declared = declaredSandbox('off', { mode: 'on' });
    expect(effectiveSandbox(declared, 'off', undefined).mode).toBe('on');
    expect(effectiveSandbox(declared, 'on', 'off').mode).toBe('off');
    expect(effectiveSandbox(declaredSandbox('off', undefined), 'on', undefined).mode).toBe('off');
    expect(effectiveSandbox(declaredSandbox(undefined, undefined), 'on', undefined).mode).toBe('on');
    expect(effectiveSandbox(declaredSandbox(undefined, undefined), undefined, undefined).mode).toBe('auto');
  });

  it('lists: the config file’s, then the plan’s, then the codon’s', () => {
    const declared = declaredSandbox(
      { allowWrite: ['/p'], hide: ['/ph'] },
      { allowWrite: ['/c'], readOnly: ['/cr'] },
    );
    const run = effectiveSandbox(declared, { allowWrite: ['/f'] }, undefined);
    expect(run.allowWrite).toEqual(['/f', '/p', '/c']);
    expect(run.readOnly).toEqual(['/cr']);
    expect(run.hide).toEqual(['/ph']);
  });

  it("network: the codon's replaces the plan's; default only the LLM route", () => {
    const plan = { network: { allow: ['registry.npmjs.org'] } };
    expect(effectiveSandbox(declaredSandbox(plan, { network: 'open' }), undefined, undefined).network).toBe(
      'open',
    );
    expect(effectiveSandbox(declaredSandbox(plan, { mode: 'on' }), undefined, undefined).network).toEqual({
      allow: ['registry.npmjs.org'],
    });
    expect(effectiveSandbox(declaredSandbox(undefined, undefined), undefined, undefined).network).toEqual({
      allow: [],
    });
  });

  it('gates and rig: codon over plan over config file, default false', () => {
    const declared = declaredSandbox({ gates: true, rig: true }, { rig: false });
    expect(effectiveSandbox(declared, undefined, undefined)).toMatchObject({ gates: true, rig: false });
    expect(effectiveSandbox(declaredSandbox(undefined, undefined), { gates: true }, undefined)).toMatchObject(
      {
        gates: true,
        rig: false,
      },
    );
  });

  it('a loaded plan carries each codon’s merged settings', async () => {
    const loaded = await loadText(
      yaml(
        'name: x',
        'sandbox: { mode: on, allowWrite: [~/.cache] }',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    sandbox: { mode: off, allowWrite: [build] }',
        '  - id: b',
        '    prompt: go',
      ),
    );
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    expect(loaded.plan.codons[0]!.sandbox).toMatchObject({ mode: 'off', allowWrite: ['~/.cache', 'build'] });
    expect(loaded.plan.codons[1]!.sandbox).toMatchObject({ mode: 'on', allowWrite: ['~/.cache'] });
  });
});

describe('validation', () => {
  it('a path naming another user’s home, or leaving the agent root, is refused', async () => {
    const problems = await problemsOf(plan('sandbox: { allowWrite: ["~bob/x", "../sibling"] }'));
    only(problems, 'SANDBOX_PATH_INVALID', 'sandbox.allowWrite[0]');
    expect(only(problems, 'SANDBOX_PATH_INVALID', 'sandbox.allowWrite[1]').hint).toContain('absolute');
  });

  it('/ or the home as allowWrite is refused', async () => {
    const problems = await problemsOf(plan(`sandbox: { allowWrite: ["/", "~", "${homedir()}"] }`));
    only(problems, 'SANDBOX_WRITE_TOO_WIDE', 'sandbox.allowWrite[0]');
    only(problems, 'SANDBOX_WRITE_TOO_WIDE', 'sandbox.allowWrite[1]');
    only(problems, 'SANDBOX_WRITE_TOO_WIDE', 'sandbox.allowWrite[2]');
  });

  it("a path in an execution's .ribosome, as allowWrite or readOnly, is refused", async () => {
    const problems = await problemsOf(
      plan('sandbox: { allowWrite: [/runs/x/.ribosome], readOnly: [/runs/x/.ribosome/logs] }'),
    );
    only(problems, 'SANDBOX_PATH_IN_HISTORY', 'sandbox.allowWrite[0]');
    only(problems, 'SANDBOX_PATH_IN_HISTORY', 'sandbox.readOnly[0]');
  });

  it('once the execution is known, a path that holds its .ribosome is refused too', () => {
    const place = { home: '/home/u', executionDir: '/w/runs/x', agentRoot: '/w/runs/x/agentRoot' };
    const drafts = checkSandboxPaths({ readOnly: ['/w/runs'], allowWrite: ['/w/cache'] }, ['sandbox'], place);
    expect(drafts.map((d) => [d.code, d.path.join('.')])).toEqual([
      ['SANDBOX_PATH_IN_HISTORY', 'sandbox.readOnly.0'],
    ]);
  });

  it('hiding the agent root is refused', async () => {
    const problems = await problemsOf(
      yaml('name: x', 'codons:', '  - id: a', '    prompt: go', '    sandbox: { hide: ["./", /] }'),
    );
    only(problems, 'SANDBOX_HIDES_AGENT_ROOT', 'codons[0].sandbox.hide[0]');
    only(problems, 'SANDBOX_HIDES_AGENT_ROOT', 'codons[0].sandbox.hide[1]');
    const place = { home: '/home/u', executionDir: '/w/x', agentRoot: '/w/x/agentRoot' };
    expect(checkSandboxPaths({ hide: ['/w'] }, [], place).map((d) => d.code)).toEqual([
      'SANDBOX_HIDES_AGENT_ROOT',
    ]);
  });

  it("a path in two lists is refused, the plan's and a codon's together", async () => {
    const problems = await problemsOf(
      yaml(
        'name: x',
        'sandbox: { hide: [~/notes] }',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    sandbox: { readOnly: [~/notes/, vendor], allowWrite: [./vendor] }',
      ),
    );
    expect(only(problems, 'SANDBOX_PATH_TWICE', 'codons[0].sandbox.readOnly[0]').message).toContain(
      "the plan's",
    );
    only(problems, 'SANDBOX_PATH_TWICE', 'codons[0].sandbox.readOnly[1]');
  });

  it('settings the agent may use are accepted', async () => {
    const loaded = await loadText(
      plan(
        'sandbox: { mode: on, allowWrite: [~/.cache/pip, build], readOnly: [/opt/tools], hide: [secrets] }',
      ),
    );
    expect(loaded.ok ? [] : loaded.problems).toEqual([]);
  });
});

describe('sandbox.network.allow hosts (trial 29 L3)', () => {
  it('takes a host, host:port and *.domain, and refuses a port outside 1..65535', async () => {
    const { SandboxHost } = await import('../../src/plan/sandbox-schema.ts');
    for (const ok of ['registry.npmjs.org', '127.0.0.1:4873', '*.example.com', '[::1]:8080', 'h:65535'])
      expect(SandboxHost.safeParse(ok).success, ok).toBe(true);
    for (const bad of ['*.com:99999', 'localhost:0', 'a b', 'http://x']) {
      expect(SandboxHost.safeParse(bad).success, bad).toBe(false);
    }
  });
});
