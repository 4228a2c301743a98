/**
 * The built-in agent as a real process (`bin/ribosome agent`) against the scripted provider on
 * loopback: files, stream-json lines, retries, failures, confinement and resumed sessions.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserLineSchema } from '../../src/agents/builtin/stream-json.ts';
import type { ScriptInput } from '../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../src/llm/mock-provider/server.ts';
import { MessagesRequestSchema } from '../../src/llm/schemas.ts';
import { jsonLines, killAllTracked, type Line, spawnTracked } from './helpers/processes.ts';
import { BIN, cleanEnv, REPO } from './helpers/repo.ts';
import { makeTempRoot, type TempRoot } from './helpers/temp-root.ts';

let temp: TempRoot;
let provider: MockProvider | undefined;
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(async () => {
  killAllTracked();
  await provider?.stop();
  provider = undefined;
  await temp.cleanup();
});

async function serve(script: ScriptInput): Promise<MockProvider> {
  provider = await startMockProvider({ script });
  return provider;
}

async function runAgent(prompt: string, args: string[] = [], env: Record<string, string> = {}) {
  if (!provider) throw new Error('start the provider first');
  const spawned = spawnTracked(BIN, ['agent', '--cwd', temp.root, ...args], {
    cwd: temp.dir,
    // A minimal environment: nothing from the developer's shell (keys, retry settings) leaks in.
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: temp.dir,
      ANTHROPIC_BASE_URL: provider.url,
      ANTHROPIC_API_KEY: 'test',
      ...env,
    },
    input: prompt,
  });
  const finished = await spawned.finished;
  return { ...finished, lines: jsonLines(finished.stdout) };
}

const ofType = (lines: Line[], type: string, subtype?: string) =>
  lines.filter((line) => line.type === type && (subtype === undefined || line.subtype === subtype));

const toolResults = (lines: Line[]) =>
  ofType(lines, 'user').map((line) => UserLineSchema.parse(line).message.content[0]);

const WRITE_EDIT_BASH: ScriptInput = {
  turns: [
    {
      content: [
        { text: 'Creating hello.txt.' },
        { tool_use: { name: 'Write', input: { file_path: 'hello.txt', content: 'hi\n' } } },
      ],
    },
    {
      content: [
        {
          tool_use: {
            name: 'Edit',
            input: { file_path: 'hello.txt', old_string: 'hi', new_string: 'hello' },
          },
        },
      ],
    },
    { content: [{ tool_use: { name: 'Bash', input: { command: 'ls && cat hello.txt' } } }] },
    { content: [{ text: 'hello.txt now says hello.' }] },
  ],
};

describe('ribosome agent (e2e)', () => {
  it('writes, edits and runs Bash, printing Claude Code stream-json', async () => {
    await serve(WRITE_EDIT_BASH);
    const { code, lines, stderr } = await runAgent('Create hello.txt, then greet properly.');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(await readFile(join(temp.root, 'hello.txt'), 'utf8')).toBe('hello\n');

    expect(lines[0]).toMatchObject({
      type: 'system',
      subtype: 'init',
      cwd: temp.root,
      model: 'claude-sonnet-4-5',
      tools: ['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write'],
    });
    const sessionId = lines[0]?.session_id;
    expect(lines.every((line) => line.session_id === sessionId)).toBe(true);
    expect(lines.map((line) => line.type)).toEqual([
      'system',
      'assistant',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'result',
    ]);
    expect(lines[2]).toMatchObject({
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', name: 'Write', input: { file_path: 'hello.txt' } }],
      },
      parent_tool_use_id: null,
    });
    expect(toolResults(lines)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: expect.stringMatching(/^toolu_/),
        content: 'File created successfully at: hello.txt',
        is_error: false,
      },
      expect.objectContaining({ is_error: false, content: expect.stringContaining('updated successfully') }),
      expect.objectContaining({ is_error: false, content: 'hello.txt\nhello' }),
    ]);
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      api_error_status: null,
      result: 'hello.txt now says hello.',
      num_turns: 4,
      modelUsage: { 'claude-sonnet-4-5': { costUSD: expect.any(Number) } },
    });
    expect(lines.at(-1)?.total_cost_usd).toBeGreaterThan(0);
  });

  it('retries a 429 after its retry-after and then succeeds', async () => {
    await serve({ turns: [{ error: { status: 429, retryAfter: 1 } }, { content: [{ text: 'Made it.' }] }] });
    const { code, lines } = await runAgent('hi');
    expect(code).toBe(0);
    expect(ofType(lines, 'system', 'api_retry')).toEqual([
      expect.objectContaining({
        attempt: 1,
        max_retries: 2,
        retry_delay_ms: 1000,
        error_status: 429,
        error: 'rate_limit',
      }),
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: false, result: 'Made it.' });
  });

  it('fails with api_error_status 500 and exit 1 once retries are exhausted', async () => {
    const p = await serve({ turns: [], whenExhausted: { error: { status: 500, retryAfter: 0 } } });
    const { code, lines } = await runAgent('hi');
    expect(code).toBe(1);
    expect(p.requests).toHaveLength(3); // first call + the default 2 retries
    expect(ofType(lines, 'system', 'api_retry')).toHaveLength(2);
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      api_error_status: 500,
      result: expect.stringContaining('API Error: 500'),
    });

    const fewer = await runAgent('hi', [], { RIBOSOME_AGENT_MAX_RETRIES: '0' });
    expect(fewer.code).toBe(1);
    expect(p.requests).toHaveLength(4);
  });

  it('refuses paths outside the agent root as tool errors and carries on', async () => {
    await serve({
      turns: [
        {
          content: [
            { tool_use: { name: 'Write', input: { file_path: '../escape.txt', content: 'x' } } },
            { tool_use: { name: 'Read', input: { file_path: '/etc/hostname' } } },
            {
              tool_use: {
                name: 'Edit',
                input: { file_path: join(temp.dir, 'x'), old_string: 'a', new_string: 'b' },
              },
            },
          ],
        },
        { content: [{ text: 'Could not.' }] },
      ],
    });
    const { code, lines } = await runAgent('escape');
    expect(code).toBe(0);
    expect(existsSync(join(temp.dir, 'escape.txt'))).toBe(false);
    const results = toolResults(lines);
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(result).toMatchObject({
        is_error: true,
        content: expect.stringContaining('outside the agent root'),
      });
    }
  });

  it('continues a session with --resume: the next request carries the first conversation', async () => {
    const p = await serve({
      turns: [{ content: [{ text: 'Noted: banana.' }] }, { content: [{ text: 'It was banana.' }] }],
    });
    const first = await runAgent('Remember the word banana.');
    expect(first.code).toBe(0);
    const sessionId = first.lines.at(-1)?.session_id;
    expect(typeof sessionId).toBe('string');
    // Default session dir: beside the agent root, in .ribosome/sessions.
    expect(existsSync(join(temp.dir, '.ribosome/sessions', `${sessionId}.json`))).toBe(true);

    const second = await runAgent('What was the word?', ['--resume', String(sessionId)]);
    expect(second.code).toBe(0);
    expect(second.lines[0]).toMatchObject({ subtype: 'init', session_id: sessionId });
    const sent = MessagesRequestSchema.parse(p.requests[1]?.body).messages;
    expect(sent).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Remember the word banana.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: banana.' }] },
      { role: 'user', content: [{ type: 'text', text: 'What was the word?' }] },
    ]);
  });

  it('reports an unknown session as error_during_execution with exit 1, using --session-dir', async () => {
    const p = await serve({});
    const { code, lines } = await runAgent('x', [
      '--resume',
      '3f0c5a7e-1111-4222-8333-944444444444',
      '--session-dir',
      join(temp.dir, 's'),
    ]);
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.objectContaining({
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        errors: ['No conversation found with session ID: 3f0c5a7e-1111-4222-8333-944444444444'],
      }),
    ]);
    expect(p.requests).toHaveLength(0);
  });

  it('ends with an error_during_execution result, not a stack trace, when its session cannot be saved', async () => {
    await serve({ turns: [{ content: [{ text: 'Hello.' }] }] });
    // A file where the session directory should be: every save fails, as on a full disk.
    const blocked = join(temp.dir, 'blocked');
    writeFileSync(blocked, '');
    const { code, lines, stderr } = await runAgent('x', ['--session-dir', join(blocked, 's')]);
    expect(code).toBe(1);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(String((lines.at(-1) as { errors?: string[] }).errors?.[0])).toMatch(
      /^The agent stopped: ENOTDIR/,
    );
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('ends with an error_during_execution result on SIGTERM, its Bash command killed', async () => {
    const p = await serve({
      turns: [
        { content: [{ tool_use: { name: 'Bash', input: { command: 'echo $$ > shell.pid; sleep 60' } } }] },
      ],
    });
    const spawned = spawnTracked(BIN, ['agent', '--cwd', temp.root], {
      cwd: temp.dir,
      env: cleanEnv(temp.dir, { ANTHROPIC_BASE_URL: p.url, ANTHROPIC_API_KEY: 'test' }),
      input: 'wait',
    });
    const pidFile = join(temp.root, 'shell.pid');
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8') === '')
      await new Promise((resolve) => setTimeout(resolve, 20));
    spawned.child.kill('SIGTERM');
    const { code, stdout } = await spawned.finished;
    expect(code).toBe(1);
    const lines = jsonLines(stdout);
    expect(toolResults(lines)).toEqual([
      expect.objectContaining({ is_error: true, content: expect.stringContaining('aborted') }),
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    const shell = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(shell, 0)).toThrow();
  });

  it('emits the same line shapes as the real Claude Code CLI (captured fixture)', async () => {
    await serve(WRITE_EDIT_BASH);
    const { lines } = await runAgent('Create hello.txt, then greet properly.');
    const fixture = jsonLines(readFileSync(join(REPO, 'test/agents/fixtures/claude-stream.jsonl'), 'utf8'));
    const errorFixture = jsonLines(
      readFileSync(join(REPO, 'test/agents/fixtures/claude-stream-api-error.jsonl'), 'utf8'),
    );
    const reference = [...fixture, ...errorFixture];
    const retried = await (async () => {
      await provider?.stop();
      await serve({
        turns: [{ error: { status: 429, retryAfter: 0 } }],
        whenExhausted: { error: { status: 500, retryAfter: 0 } },
      });
      return (await runAgent('hi')).lines;
    })();

    // Fields of ours that Claude Code does not print (docs/unattended.md#automatic-retries-and-the-fallback-model).
    const ours = new Set(['retry_after_ms']);
    for (const printed of [...lines, ...retried]) {
      const line = Object.fromEntries(Object.entries(printed).filter(([key]) => !ours.has(key)));
      // Every other field we print, Claude Code prints too (on some line of the same type), with the same JSON type.
      const twin = reference.find(
        (ref) =>
          ref.type === line.type &&
          ref.subtype === line.subtype &&
          Object.keys(line).every((key) => key in ref),
      );
      expect(
        twin,
        `${line.type}/${line.subtype} with fields ${Object.keys(line)} has a counterpart in the fixtures`,
      ).toBeDefined();
      if (!twin) continue;
      for (const [key, value] of Object.entries(line)) {
        expect(jsonType(value), `${line.type}/${line.subtype}.${key}`).toBe(
          jsonType(twin[key]) === 'null' ? jsonType(value) : jsonType(twin[key]),
        );
      }
    }
    // The provider's retry-after of the error that ended the run reaches the engine.
    expect(retried.at(-1)).toMatchObject({ type: 'result', is_error: true, retry_after_ms: 0 });
    // And the fields the engine reads are all there.
    const result = lines.at(-1) ?? {};
    for (const key of [
      'is_error',
      'api_error_status',
      'result',
      'session_id',
      'total_cost_usd',
      'usage',
      'modelUsage',
      'num_turns',
      'duration_ms',
    ]) {
      expect(Object.keys(result)).toContain(key);
    }
  });
});

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
