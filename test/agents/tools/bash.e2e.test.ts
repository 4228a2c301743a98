import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashTool } from '../../../src/agents/builtin/tools/bash.ts';
import { createOutputCap } from '../../../src/agents/builtin/tools/output-cap.ts';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.ts';

let temp: TempRoot;
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(() => temp.cleanup());
function readFileSyncOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
const ctx = (signal?: AbortSignal) => ({ root: temp.root, ...(signal ? { signal } : {}) });

describe('Bash', () => {
  it('runs in the agent root and returns stdout and stderr together', async () => {
    expect(await bashTool.execute({ command: 'pwd; echo err >&2; touch made.txt' }, ctx())).toEqual({
      content: `${temp.root}\nerr`,
      isError: false,
    });
    expect(existsSync(join(temp.root, 'made.txt'))).toBe(true);
    expect((await bashTool.execute({ command: 'true' }, ctx())).content).toBe(
      '(Bash completed with no output)',
    );
  });

  it('reports a non-zero exit as an error with its code', async () => {
    expect(await bashTool.execute({ command: 'echo nope; exit 3' }, ctx())).toEqual({
      content: 'Exit code 3\nnope',
      isError: true,
    });
  });

  it('kills the whole process group on timeout', async () => {
    const outcome = await bashTool.execute(
      { command: 'echo started; sleep 30 & sleep 30; echo never', timeout: 300 },
      ctx(),
    );
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toMatch(/^Command timed out after 300 ms\nstarted$/);
  });

  it('stops when the agent is interrupted', async () => {
    const controller = new AbortController();
    const pending = bashTool.execute({ command: 'sleep 30' }, ctx(controller.signal));
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toMatchObject({ isError: true, content: expect.stringContaining('aborted') });
  });

  it('ends background children with the command instead of waiting for them', async () => {
    const outcome = await bashTool.execute(
      { command: 'sleep 30 & echo $! > sleeper; disown; echo hi' },
      ctx(),
    );
    expect(outcome).toEqual({ content: 'hi', isError: false });
    const sleeper = Number(await readFile(join(temp.root, 'sleeper'), 'utf8'));
    // Killed means gone or a zombie awaiting its reaper; give the kernel a moment, boundedly.
    const alive = () => {
      const stat = readFileSyncOrNull(`/proc/${sleeper}/stat`);
      return stat !== null && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive()).toBe(false);
  });

  it("passes the agent's environment to the command (the engine's mark of the run included)", async () => {
    process.env.RIBOSOME_BASH_ENV_TEST = 'marked';
    try {
      expect(await bashTool.execute({ command: 'printf %s "$RIBOSOME_BASH_ENV_TEST"' }, ctx())).toEqual({
        content: 'marked',
        isError: false,
      });
    } finally {
      delete process.env.RIBOSOME_BASH_ENV_TEST;
    }
  });

  it('validates its input', async () => {
    expect(await bashTool.execute({ command: '' }, ctx())).toMatchObject({ isError: true });
    expect(await bashTool.execute({ command: 'ls', timeout: 10_000_000 }, ctx())).toMatchObject({
      isError: true,
    });
  });
});

describe('createOutputCap', () => {
  it('keeps everything under the limit', () => {
    const cap = createOutputCap(10);
    cap.add('abc');
    cap.add('def');
    expect(cap.text()).toBe('abcdef');
  });

  it('keeps head and tail around a marker when over the limit', () => {
    const cap = createOutputCap(10);
    for (const chunk of ['01234', '56789', 'abcde', 'fghij']) cap.add(chunk);
    expect(cap.text()).toBe('01234\n... [10 characters omitted] ...\nfghij');
  });
});
