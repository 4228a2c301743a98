import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaudeCodeAdapter } from '../../src/agents/claude-code-adapter.ts';
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
  const fake = join(t.path, 'claude');
  writeFileSync(
    fake,
    `#!/bin/sh\nprintf 'HOME=%s\\nCLAUDE_CONFIG_DIR=%s\\n' "$HOME" "$CLAUDE_CONFIG_DIR" > '${out}'\n`,
  );
  chmodSync(fake, 0o755);
  const saved = {
    bin: process.env.RIBOSOME_CLAUDE_BIN,
    home: process.env.HOME,
    dir: process.env.CLAUDE_CONFIG_DIR,
  };
  process.env.RIBOSOME_CLAUDE_BIN = fake;
  process.env.HOME = userHome;
  delete process.env.CLAUDE_CONFIG_DIR;
  try {
    const run = new ClaudeCodeAdapter({ config }).start({
      prompt: 'Do it.',
      model: 'm',
      cwd: t.path,
      env: {},
      providerBaseUrl: 'http://127.0.0.1:9',
      stateDir: join(t.path, 'state'),
      mark: 'test-mark',
    });
    await run.exited;
  } finally {
    for (const [key, value] of [
      ['RIBOSOME_CLAUDE_BIN', saved.bin],
      ['HOME', saved.home],
      ['CLAUDE_CONFIG_DIR', saved.dir],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
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
