/**
 * The real Claude Code CLI, started by the adapter against the scripted provider, with a data
 * directory linked into its agent root: the deny rules the adapter passes with --settings keep Write
 * and Edit out of it, in bypassPermissions mode, through the link and through the real path alike,
 * while a write elsewhere in the agent root goes through.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentRun } from '../../src/agents/agent-adapter.ts';
import { ClaudeCodeAdapter } from '../../src/agents/claude-code/claude-code-adapter.ts';
import type { ScriptInput } from '../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../src/llm/mock-provider/server.ts';
import { REPO } from './helpers/repo.ts';
import { makeTempRoot, type TempRoot } from './helpers/temp-root.ts';

const CLAUDE = join(REPO, 'node_modules/.bin/claude');
const TIMEOUT = 90_000;

let temp: TempRoot;
let provider: MockProvider | undefined;
let run: AgentRun | undefined;
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(async () => {
  await run?.stop(1_000);
  run = undefined;
  await provider?.stop();
  provider = undefined;
  await temp.cleanup();
});

const tool = (name: string, input: Record<string, unknown>) => ({ content: [{ tool_use: { name, input } }] });

describe.skipIf(!existsSync(CLAUDE))('Claude Code and the data directory (e2e)', () => {
  it(
    'cannot Write or Edit into ribosome-data in bypassPermissions mode; writes elsewhere',
    async () => {
      const data = join(temp.dir, 'data');
      mkdirSync(data);
      writeFileSync(join(data, 'input.txt'), 'the data\n');
      const link = join(temp.root, 'ribosome-data');
      symlinkSync(data, link);
      const script: ScriptInput = {
        tracks: [
          {
            name: 'tool-less',
            match: { tools: false },
            turns: [],
            whenExhausted: { content: [{ text: 'OK.' }] },
          },
        ],
        turns: [
          tool('Write', { file_path: 'ribosome-data/x.txt', content: 'x' }),
          tool('Write', { file_path: join(link, 'y.txt'), content: 'y' }),
          tool('Write', { file_path: join(realpathSync(data), 'z.txt'), content: 'z' }),
          tool('Read', { file_path: join(link, 'input.txt') }),
          tool('Edit', { file_path: join(link, 'input.txt'), old_string: 'the', new_string: 'a' }),
          tool('Write', { file_path: join(temp.root, 'ok.txt'), content: 'ok' }),
          { content: [{ text: 'Done.' }] },
        ],
      };
      provider = await startMockProvider({ script });
      const state = join(temp.dir, 'state');
      run = new ClaudeCodeAdapter().start({
        prompt: 'Write into the data directory.',
        model: 'claude-sonnet-4-5',
        cwd: temp.root,
        dataDir: link,
        env: { ANTHROPIC_API_KEY: 'test', CLAUDE_CODE_MAX_RETRIES: '0' },
        providerBaseUrl: provider.url,
        stateDir: state,
        mark: `data-dir-${process.pid}`,
      });
      const results: Array<{ content: unknown; is_error?: boolean }> = [];
      for await (const line of run.lines) {
        if (line.type !== 'user') continue;
        const content = (line as { message?: { content?: unknown } }).message?.content;
        if (Array.isArray(content))
          for (const block of content) if (block?.type === 'tool_result') results.push(block);
      }
      expect(await run.exited).toEqual({ type: 'success' });

      expect(existsSync(join(data, 'x.txt'))).toBe(false);
      expect(existsSync(join(data, 'y.txt'))).toBe(false);
      expect(existsSync(join(data, 'z.txt'))).toBe(false);
      expect(readFileSync(join(data, 'input.txt'), 'utf8')).toBe('the data\n');
      expect(readFileSync(join(temp.root, 'ok.txt'), 'utf8')).toBe('ok');
      expect(results.map((r) => r.is_error === true)).toEqual([true, true, true, false, true, false]);
      // Read goes through the link.
      expect(JSON.stringify(results[3]?.content)).toContain('the data');
    },
    TIMEOUT,
  );
});
