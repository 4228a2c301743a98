import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialKey } from '../../../src/execution/usage-limits/credential-key.ts';
import { SharedLimitsDir } from '../../../src/execution/usage-limits/shared-limits-dir.ts';
import { tempDir } from '../../helpers/server-process.ts';

/**
 * Runs on one credential share a usage limit through a directory of small records
 * (docs/unattended.md#runs-on-one-credential-wait-together): one per agent and credential, never
 * holding the credential itself, the later reset kept, anything unreadable taken as no limit.
 */

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

const PROVIDER = 'https://api.anthropic.com';
const KEY_A = 'sk-ant-api03-first-key-0123456789abcdef';
const KEY_B = 'sk-ant-api03-other-key-0123456789abcdef';

function store(env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: KEY_A }, dir?: string) {
  const path =
    dir ??
    (() => {
      const made = tempDir('ribosome-shared-limits-');
      dirs.push(made);
      return made.path;
    })();
  const warnings: string[] = [];
  const limits = new SharedLimitsDir({
    dir: path,
    keyOf: (agent) => credentialKey(agent, PROVIDER, env),
    by: '/runs/a',
    warn: (text) => warnings.push(text),
  });
  return { dir: path, limits, warnings };
}

const NOW = Date.parse('2026-06-01T12:00:00Z');

describe('the key of a shared usage limit', () => {
  it('is the same for the same agent, credential and provider, and differs when any of them does', () => {
    const key = credentialKey('claude-code', PROVIDER, { ANTHROPIC_API_KEY: KEY_A, HOME: '/a' });
    expect(key).toMatch(/^claude-code-[0-9a-f]{16}$/);
    // Variables that are not the agent's credential do not matter.
    expect(credentialKey('claude-code', `${PROVIDER}/`, { ANTHROPIC_API_KEY: KEY_A, HOME: '/b' })).toBe(key);
    expect(credentialKey('claude-code', PROVIDER, { ANTHROPIC_API_KEY: KEY_B })).not.toBe(key);
    expect(credentialKey('claude-code', PROVIDER, { CLAUDE_CODE_OAUTH_TOKEN: KEY_A })).not.toBe(key);
    expect(credentialKey('claude-code', 'http://127.0.0.1:8080', { ANTHROPIC_API_KEY: KEY_A })).not.toBe(key);
    expect(credentialKey('builtin', PROVIDER, { ANTHROPIC_API_KEY: KEY_A })).toMatch(/^builtin-/);
    expect(credentialKey('builtin', PROVIDER, { ANTHROPIC_API_KEY: KEY_A }).slice(-16)).not.toBe(
      key.slice(-16),
    );
  });

  it("takes each agent's own credential variables: Codex's key does not part two Claude Code runs", () => {
    const claude = (env: NodeJS.ProcessEnv) => credentialKey('claude-code', PROVIDER, env);
    const codex = (env: NodeJS.ProcessEnv) => credentialKey('codex', PROVIDER, env);
    expect(claude({ ANTHROPIC_API_KEY: KEY_A, OPENAI_API_KEY: 'x' })).toBe(
      claude({ ANTHROPIC_API_KEY: KEY_A }),
    );
    expect(codex({ ANTHROPIC_API_KEY: KEY_A, OPENAI_API_KEY: 'x' })).toBe(codex({ OPENAI_API_KEY: 'x' }));
    expect(codex({ OPENAI_API_KEY: 'x' })).not.toBe(codex({ OPENAI_API_KEY: 'y' }));
  });
});

describe('the shared usage limits directory', () => {
  it("holds one record per agent and credential: a run on the same one sees it, another key's does not", () => {
    const a = store();
    a.limits.note('claude-code', NOW + 60_000);
    expect(store({ ANTHROPIC_API_KEY: KEY_A }, a.dir).limits.until('claude-code', NOW)).toBe(NOW + 60_000);
    expect(store({ ANTHROPIC_API_KEY: KEY_B }, a.dir).limits.until('claude-code', NOW)).toBeUndefined();
    expect(a.limits.until('builtin', NOW)).toBeUndefined();
    expect(readdirSync(a.dir)).toEqual([
      `${credentialKey('claude-code', PROVIDER, { ANTHROPIC_API_KEY: KEY_A })}.json`,
    ]);
  });

  it('writes the agent, the reset, when and by which run, and never the credential', () => {
    const a = store();
    a.limits.note('claude-code', NOW + 60_000);
    const text = readFileSync(a.limits.fileOf('claude-code'), 'utf8');
    expect(JSON.parse(text)).toEqual({
      agent: 'claude-code',
      until: new Date(NOW + 60_000).toISOString(),
      notedAt: expect.any(String),
      by: '/runs/a',
    });
    expect(text).not.toContain(KEY_A);
    expect(text).not.toContain(KEY_A.slice(0, 12));
  });

  it('keeps the later reset whichever run notes it first', () => {
    const a = store();
    const b = store({ ANTHROPIC_API_KEY: KEY_A }, a.dir);
    a.limits.note('claude-code', NOW + 120_000);
    b.limits.note('claude-code', NOW + 60_000);
    expect(b.limits.until('claude-code', NOW)).toBe(NOW + 120_000);
    b.limits.note('claude-code', NOW + 180_000);
    expect(a.limits.until('claude-code', NOW)).toBe(NOW + 180_000);
  });

  it('a reset that has passed is no limit', () => {
    const a = store();
    a.limits.note('claude-code', NOW - 1);
    expect(a.limits.until('claude-code', NOW)).toBeUndefined();
    a.limits.note('claude-code', NOW + 5_000);
    expect(a.limits.until('claude-code', NOW)).toBe(NOW + 5_000);
    expect(a.limits.until('claude-code', NOW + 5_000)).toBeUndefined();
  });

  it('a missing directory is made at the first limit, and no record is no limit, without a warning', () => {
    const parent = store();
    const nested = store({ ANTHROPIC_API_KEY: KEY_A }, join(parent.dir, 'usage-limits'));
    expect(nested.limits.until('claude-code', NOW)).toBeUndefined();
    nested.limits.note('claude-code', NOW + 1_000);
    expect(nested.limits.until('claude-code', NOW)).toBe(NOW + 1_000);
    expect(nested.warnings).toEqual([]);
  });

  it('a corrupt, partial or foreign record is no limit, said once, and the next limit noted replaces it', () => {
    for (const text of [
      '{"agent":"claude-code","until":"2026-06',
      'not json',
      '{"agent":"codex","until":"2099-01-01T00:00:00.000Z","notedAt":"2026-06-01T00:00:00.000Z"}',
      '[]',
    ]) {
      const a = store();
      writeFileSync(a.limits.fileOf('claude-code'), text);
      expect(a.limits.until('claude-code', NOW)).toBeUndefined();
      expect(a.limits.until('claude-code', NOW)).toBeUndefined();
      expect(a.warnings).toHaveLength(1);
      expect(a.warnings[0]).toContain('read as no limit');
      a.limits.note('claude-code', NOW + 1_000);
      expect(a.limits.until('claude-code', NOW)).toBe(NOW + 1_000);
    }
  });

  it('a directory it cannot write to is said once, and nothing throws', () => {
    const a = store();
    const file = join(a.dir, 'a-file');
    writeFileSync(file, '');
    const blocked = store({ ANTHROPIC_API_KEY: KEY_A }, join(file, 'usage-limits'));
    expect(() => blocked.limits.note('claude-code', NOW + 1_000)).not.toThrow();
    expect(() => blocked.limits.note('claude-code', NOW + 2_000)).not.toThrow();
    expect(blocked.limits.until('claude-code', NOW)).toBeUndefined();
    expect(blocked.warnings).toHaveLength(1);
    expect(blocked.warnings[0]).toMatch(/cannot write .*other runs on this credential will not wait/);
  });
});
