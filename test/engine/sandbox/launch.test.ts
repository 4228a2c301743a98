import { describe, expect, it } from 'vitest';
import { sandboxWith } from '../../../src/agents/sandbox-homes.ts';
import { DENIAL_INTERVAL_MS, DenialCoalescer } from '../../../src/engine/sandbox/denial-coalescer.ts';
import { buildLaunch } from '../../../src/engine/sandbox/launch.ts';
import { compileStep } from '../../../src/engine/sentinels/trigger-match.ts';
import type { SandboxDenial } from '../../../src/platform/sandbox/launch.ts';
import { loadText, yaml } from '../../plan/helpers.ts';

/** What a confined codon's agent may touch, and how its refusals reach the journal (docs/agents.md#the-sandbox). */

const place = {
  agentRoot: '/w/runs/x/agentRoot',
  executionDir: '/w/runs/x',
  rigArchive: '/w/runs/x/rigArchive',
  dataDir: '/data/real',
  home: '/home/u',
  otherExecutions: ['/w/runs/y'],
  secrets: ['/home/u/.ssh', '/home/u/.aws'],
};

describe('the launch of a confined codon', () => {
  it('writes the agent root and allowWrite; reads the data directory; hides history, other runs, secrets and hide', () => {
    const launch = buildLaunch(
      { allowWrite: ['~/.cache/pip', 'build'], readOnly: ['/opt/tools/'], hide: ['secrets', '~/notes'] },
      place,
      { kind: 'gated', socket: '/tmp/g/net.sock', port: 3128 },
    );
    expect(launch).toEqual({
      writable: ['/w/runs/x/agentRoot', '/home/u/.cache/pip', '/w/runs/x/agentRoot/build'],
      readOnly: ['/data/real', '/opt/tools'],
      hidden: [
        '/w/runs/x/.ribosome',
        '/w/runs/x/rigArchive',
        '/w/runs/y',
        '/home/u/.ssh',
        '/home/u/.aws',
        '/w/runs/x/agentRoot/secrets',
        '/home/u/notes',
      ],
      network: { kind: 'gated', socket: '/tmp/g/net.sock', port: 3128 },
    });
  });

  it('without a data directory reads nothing extra; an open network stays open', () => {
    const { dataDir: _none, ...without } = place;
    const launch = buildLaunch({ allowWrite: [], readOnly: [], hide: [] }, without, { kind: 'open' });
    expect(launch.readOnly).toEqual([]);
    expect(launch.network).toEqual({ kind: 'open' });
  });

  it('an adapter adds its own homes, never the whole state directory', () => {
    const launch = buildLaunch({ allowWrite: [], readOnly: [], hide: [] }, place, { kind: 'open' });
    const state = '/w/runs/x/.ribosome/agents';
    const spec = sandboxWith(launch, { writable: [`${state}/claude-home`], readOnly: [`${state}/x.md`] });
    expect(spec.sandbox?.writable).toEqual(['/w/runs/x/agentRoot', `${state}/claude-home`]);
    expect(spec.sandbox?.readOnly).toEqual(['/data/real', `${state}/x.md`]);
    expect(spec.sandbox?.hidden).toContain('/w/runs/x/.ribosome');
    expect(sandboxWith(undefined, { writable: [state] })).toEqual({});
  });
});

describe('refusals, coalesced', () => {
  const to = (target: string): SandboxDenial => ({
    kind: 'connect',
    target,
    reason: 'not in sandbox.network.allow',
  });

  it("a target's first refusal at once; later ones at most once a second, counted", () => {
    const c = new DenialCoalescer('one');
    expect(c.denied(to('a:1'), 0).publish).toMatchObject({ codonId: 'one', target: 'a:1', count: 1 });
    expect(c.denied(to('b:2'), 10).publish).toMatchObject({ target: 'b:2', count: 1 });
    expect(c.denied(to('a:1'), 100)).toEqual({ wakeAt: DENIAL_INTERVAL_MS });
    expect(c.denied(to('a:1'), 200)).toEqual({ wakeAt: DENIAL_INTERVAL_MS });
    expect(c.due(500)).toEqual({ publish: [], wakeAt: DENIAL_INTERVAL_MS });
    expect(c.due(DENIAL_INTERVAL_MS).publish).toEqual([{ ...to('a:1'), codonId: 'one', count: 3 }]);
    expect(c.denied(to('a:1'), 2 * DENIAL_INTERVAL_MS + 1).publish).toMatchObject({ count: 4 });
  });

  it('what is held when the sandbox closes is published then', () => {
    const c = new DenialCoalescer('one');
    c.denied(to('a:1'), 0);
    c.denied(to('a:1'), 1);
    expect(c.due(2, true).publish).toEqual([{ ...to('a:1'), codonId: 'one', count: 2 }]);
    expect(c.due(3, true).publish).toEqual([]);
  });
});

describe('sentinels', () => {
  it('a trigger on sandbox.denied loads without a warning and fires on a refusal', async () => {
    const loaded = await loadText(
      yaml(
        'name: x',
        'sentinels:',
        '  watch:',
        '    model: claude-haiku-4-5',
        '    trigger: { type: event, eventTypes: [sandbox.denied] }',
        '    userPrompt: "{{events}}"',
        '    output: { type: text }',
        'codons:',
        '  - id: a',
        '    prompt: go',
        '    sentinels: [watch]',
      ),
    );
    expect(loaded.ok ? loaded.warnings : loaded.problems).toEqual([]);
    const fires = compileStep(
      ['sandbox.denied'],
      [{ path: 'data.target', op: 'equals', value: '127.0.0.1:9' }],
    );
    const denied = { codonId: 'a', kind: 'request', target: '127.0.0.1:9', reason: 'no', count: 1 };
    expect(fires({ type: 'sandbox.denied', data: denied })).toBe(true);
    expect(fires({ type: 'sandbox.denied', data: { ...denied, target: 'x:1' } })).toBe(false);
  });
});
