/**
 * An agent CLI that ends without its result: the failure its translator makes up says how the process
 * ended and what it said last on stderr (trial 18 M5: Gemini CLI's "Invalid auth method selected."
 * was only in the server log).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { opencodeTranslator } from '../../src/agents/opencode/opencode-translator.ts';
import { spawnAgent, withLastWords } from '../../src/agents/spawn-agent.ts';
import type { StreamLine } from '../../src/agents/stream-line.ts';
import { lastWords } from '../../src/platform/processes/last-words.ts';
import { tempDir } from '../helpers/server-process.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('lastWords', () => {
  it('keeps the last lines that say something: no blanks, stack frames, brackets or colours', () => {
    expect(
      lastWords(
        'YOLO mode is enabled. All tool calls will be automatically approved.\nInvalid auth method selected.\n',
      ),
    ).toEqual([
      'YOLO mode is enabled. All tool calls will be automatically approved.',
      'Invalid auth method selected.',
    ]);
    const stack =
      'noise\nError: boom\n    at main (file.js:1:1)\n    at run (file.js:2:2)\n{\n  code: 7\n}\n\n';
    expect(lastWords(stack)).toEqual(['noise', 'Error: boom', 'code: 7']);
    expect(lastWords('\u001b[31mred failure\u001b[0m\n')).toEqual(['red failure']);
    expect(lastWords('')).toEqual([]);
    const long = 'x'.repeat(800);
    expect(lastWords(`short\n${long}`)).toEqual([`…${'x'.repeat(499)}`]);
  });

  it('is added to a made-up failed result only, with how the process ended', () => {
    const failed: StreamLine = {
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      result: 'gone',
    };
    expect(
      withLastWords(failed, { type: 'error', code: 41 }, 'Invalid auth method selected.\n'),
    ).toMatchObject({
      result: 'gone (exit code 41; its stderr ended: Invalid auth method selected.)',
    });
    expect(withLastWords(failed, { type: 'killed', signal: 'SIGKILL' }, '')).toMatchObject({
      result: 'gone (killed by SIGKILL; nothing on stderr)',
    });
    const ok: StreamLine = { type: 'result', subtype: 'success', is_error: false, result: 'done' };
    expect(withLastWords(ok, { type: 'success' }, 'warning')).toBe(ok);
  });
});

describe('spawnAgent: a CLI that died without its result', () => {
  it("the translator's failed result carries the exit code and the CLI's last stderr lines", async () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const bin = join(t.path, 'agent');
    writeFileSync(
      bin,
      '#!/bin/sh\necho "Starting up." >&2\necho "Invalid auth method selected." >&2\nexit 41\n',
    );
    chmodSync(bin, 0o755);
    const run = spawnAgent({
      command: bin,
      args: [],
      cwd: t.path,
      env: process.env,
      stdin: '',
      mark: 'last-words-test',
      translator: opencodeTranslator({ model: 'm' }),
    });
    const lines: StreamLine[] = [];
    for await (const line of run.lines) lines.push(line);
    expect(await run.exited).toEqual({ type: 'error', code: 41 });
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      result:
        'opencode ended without finishing its turn (exit code 41; its stderr ended: Starting up. / Invalid auth method selected.)',
    });
  });
});
