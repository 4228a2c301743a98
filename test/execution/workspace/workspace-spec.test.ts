import { describe, expect, it } from 'vitest';
import { decideWorkspace } from '../../../src/execution/workspace/decide.ts';
import { parseWorkspaceSpec } from '../../../src/execution/workspace/spec.ts';

describe('parseWorkspaceSpec', () => {
  it('a relative path starts at the base directory; the last @ names the ref', () => {
    expect(parseWorkspaceSpec('repo', '/plans')).toEqual({ ok: true, value: { path: '/plans/repo' } });
    expect(parseWorkspaceSpec('../repo@v1', '/plans/x')).toEqual({
      ok: true,
      value: { path: '/plans/repo', ref: 'v1' },
    });
    expect(parseWorkspaceSpec('/home/me@work/repo@feature/x', '/')).toEqual({
      ok: true,
      value: { path: '/home/me@work/repo', ref: 'feature/x' },
    });
  });

  it.each([['repo@'], ['repo@two words'], ['repo@-x']])('refuses %j', (text) => {
    const parsed = parseWorkspaceSpec(text, '/');
    expect(parsed.ok).toBe(false);
  });
});

describe('decideWorkspace', () => {
  const base = { hasRuns: false, agentRoot: '/e/agentRoot', agentRootEntries: [] as string[] };
  const spec = { path: '/r', ref: 'v1' };
  const recorded = { repo: '/r', ref: 'v1', commit: 'a'.repeat(40) };

  it('clones on a fresh execution with an empty agent root; nothing without a workspace', () => {
    expect(decideWorkspace({ ...base, spec, recorded: undefined })).toEqual({ action: 'clone' });
    expect(decideWorkspace({ ...base, spec: undefined, recorded })).toEqual({ action: 'none' });
  });

  it('keeps the recorded workspace; a different one only gets a notice', () => {
    expect(decideWorkspace({ ...base, spec, recorded })).toEqual({ action: 'none' });
    const other = decideWorkspace({ ...base, spec: { path: '/r', ref: 'v2' }, recorded });
    expect(other).toMatchObject({ action: 'keep' });
    expect(other.action === 'keep' && other.notice).toContain('/r@v1');
  });

  it('an execution with runs but no workspace keeps going without one', () => {
    expect(decideWorkspace({ ...base, hasRuns: true, spec, recorded: undefined })).toMatchObject({
      action: 'keep',
    });
  });

  it('refuses an agent root that already holds files, naming them', () => {
    const refused = decideWorkspace({ ...base, agentRootEntries: ['x.txt'], spec, recorded: undefined });
    expect(refused).toMatchObject({ action: 'refuse' });
    expect(refused.action === 'refuse' && refused.message).toContain('x.txt');
  });
});
