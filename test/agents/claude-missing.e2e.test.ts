import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claudeBinary } from '../../src/agents/claude-code/claude-binary.ts';
import { ClaudeCodeAdapter } from '../../src/agents/claude-code/claude-code-adapter.ts';
import { tempDir } from '../helpers/server-process.ts';

/** Claude Code is an optional peer dependency: where it is looked for, and what a run says without it. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const c of cleanups.splice(0)) c();
});

describe('Claude Code binary', () => {
  it('RIBOSOME_CLAUDE_BIN first, else the installed @anthropic-ai/claude-code package (not a .bin link)', () => {
    expect(claudeBinary({ RIBOSOME_CLAUDE_BIN: '/opt/claude' })).toBe('/opt/claude');
    // The clone has it as a devDependency: found through module resolution, as beside an installed ribosome.
    expect(claudeBinary({})).toMatch(/node_modules\/@anthropic-ai\/claude-code\/bin\/claude/);
  });

  it('missing: the codon fails at once saying how to install it', async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    vi.stubEnv('RIBOSOME_CLAUDE_BIN', join(t.path, 'no-claude'));
    const run = new ClaudeCodeAdapter().start({
      prompt: 'Do it.',
      model: 'm',
      cwd: t.path,
      env: {},
      providerBaseUrl: 'http://127.0.0.1:9',
      stateDir: join(t.path, 'state'),
      mark: 'claude-missing-test',
    });
    expect(await run.exited).toEqual({ type: 'error', code: 127 });
    expect(run.startFailure).toMatch(/ENOENT.*RIBOSOME_CLAUDE_BIN=\S*no-claude: not found/);
    expect(run.startFailure).toMatch(/npm install @anthropic-ai\/claude-code/);
  });
});
