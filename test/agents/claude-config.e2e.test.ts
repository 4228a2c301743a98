import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runFakeClaude } from '../helpers/fake-claude.ts';
import { tempDir } from '../helpers/server-process.ts';

/**
 * claudeConfig: isolated gives Claude Code a home and config directory of its own; user leaves it the
 * user's (their `claude login`, settings and hooks). A fake `claude` prints what it was given.
 */

const temps: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const t of temps.splice(0)) t.remove();
});

async function envSeen(config: 'isolated' | 'user', userHome: string): Promise<Record<string, string>> {
  const t = tempDir();
  temps.push(t);
  const out = join(t.path, 'env.txt');
  await runFakeClaude({
    dir: t.path,
    config,
    body: `printf 'HOME=%s\\nCLAUDE_CONFIG_DIR=%s\\n' "$HOME" "$CLAUDE_CONFIG_DIR" > '${out}'`,
    env: { HOME: userHome, CLAUDE_CONFIG_DIR: undefined },
  });
  return Object.fromEntries(
    readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => line.split('=') as [string, string]),
  );
}

describe('claudeConfig', () => {
  it('isolated: a home and config directory of its own in the execution', async () => {
    const seen = await envSeen('isolated', '/home/someone');
    expect(seen.HOME).toMatch(/state\/claude-home$/);
    expect(seen.CLAUDE_CONFIG_DIR).toBe(seen.HOME);
  });

  it("user: the user's own home, where their ~/.claude login is", async () => {
    const seen = await envSeen('user', '/home/someone');
    expect(seen).toEqual({ HOME: '/home/someone', CLAUDE_CONFIG_DIR: '' });
  });
});

describe('the data directory', () => {
  it.each(['isolated', 'user'] as const)(
    '%s: --settings denies the file tools the data directory (added to the config, not replacing it)',
    async (config) => {
      const t = tempDir();
      temps.push(t);
      const out = join(t.path, 'args.txt');
      const link = join(t.path, 'ribosome-data');
      await runFakeClaude({
        dir: t.path,
        config,
        body: `for a in "$@"; do printf '%s\\n' "$a"; done > '${out}'`,
        start: { dataDir: link },
      });
      const args = readFileSync(out, 'utf8').trimEnd().split('\n');
      const settings = JSON.parse(args[args.indexOf('--settings') + 1] ?? '{}');
      expect(settings.permissions.deny).toEqual(
        expect.arrayContaining([`Write(/${link}/**)`, `Edit(/${link}/**)`, `NotebookEdit(/${link}/**)`]),
      );
      expect(args).toContain('bypassPermissions');
    },
  );
});
