/**
 * The real Claude Code CLI against the scripted provider on loopback. Proves the provider speaks the
 * Messages API well enough for it, that the script's tracks keep its side requests away from the
 * agent's turns, and records the transcripts the built-in agent is compared with
 * (RIBOSOME_UPDATE_FIXTURES=1 rewrites test/agents/fixtures/).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadScript } from '../../src/llm/mock-provider/script-loader.ts';
import type { ScriptInput } from '../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../src/llm/mock-provider/server.ts';
import { jsonLines, killAllTracked, spawnTracked } from './helpers/processes.ts';
import { cleanEnv, REPO } from './helpers/repo.ts';
import { makeTempRoot, type TempRoot } from './helpers/temp-root.ts';

const CLAUDE = join(REPO, 'node_modules/.bin/claude');
const FIXTURES = join(REPO, 'test/agents/fixtures');
const UPDATE = process.env.RIBOSOME_UPDATE_FIXTURES === '1';
/** Each Claude Code start takes 1-4 s, more on a loaded machine. */
const TIMEOUT = 90_000;

/** Tracks for what Claude Code asks besides the agent's own turns (session titles, other helpers). */
const SIDE_TRACKS: NonNullable<ScriptInput['tracks']> = [
  {
    name: 'claude-code-title',
    match: { system: 'Generate a concise, sentence-case title' },
    turns: [],
    whenExhausted: { content: [{ text: '{"title": "Scripted session"}' }] },
  },
  { name: 'tool-less', match: { tools: false }, turns: [], whenExhausted: { content: [{ text: 'OK.' }] } },
];

const WRITE_HELLO: ScriptInput = {
  tracks: SIDE_TRACKS,
  turns: [
    {
      content: [
        { text: "I'll create hello.txt." },
        { tool_use: { name: 'Write', input: { file_path: 'hello.txt', content: 'hi' } } },
      ],
    },
    { content: [{ text: 'Created hello.txt containing "hi".' }] },
  ],
};

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

async function runClaude(script: ScriptInput, prompt: string, env: Record<string, string | undefined> = {}) {
  provider = await startMockProvider({ script });
  return runClaudeAgainst(provider, prompt, env);
}

/** One headless Claude Code run in the temp agent root; HOME and config are per test, shared by its runs. */
async function runClaudeAgainst(
  p: MockProvider,
  prompt: string,
  env: Record<string, string | undefined> = {},
) {
  const home = join(temp.dir, 'home');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(temp.dir, 'tmp'), { recursive: true });
  const fullEnv = cleanEnv(home, {
    CLAUDE_CONFIG_DIR: home,
    CLAUDE_CODE_TMPDIR: join(temp.dir, 'tmp'),
    ANTHROPIC_BASE_URL: p.url,
    ANTHROPIC_API_KEY: 'test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    IS_SANDBOX: '1', // tests run as root; bypassPermissions needs it
    CLAUDE_CODE_MAX_RETRIES: '0',
    ...env,
  });
  const spawned = spawnTracked(
    CLAUDE,
    [
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      'claude-sonnet-4-5',
      '--permission-mode',
      'bypassPermissions',
    ],
    { cwd: temp.root, env: fullEnv, input: prompt },
  );
  const finished = await spawned.finished;
  return { ...finished, lines: jsonLines(finished.stdout), requests: p.requests };
}

function saveFixture(name: string, stdout: string): void {
  if (UPDATE) writeFileSync(join(FIXTURES, name), stdout);
}

describe.skipIf(!existsSync(CLAUDE))('Claude Code CLI against the scripted provider (e2e)', () => {
  it(
    'writes hello.txt from a scripted Write tool_use and reports success in stream-json',
    async () => {
      const { code, lines, stdout, requests } = await runClaude(
        WRITE_HELLO,
        'Create hello.txt containing hi.',
      );
      expect(code).toBe(0);
      expect(await readFile(join(temp.root, 'hello.txt'), 'utf8')).toBe('hi');

      expect(lines[0]).toMatchObject({
        type: 'system',
        subtype: 'init',
        cwd: temp.root,
        model: 'claude-sonnet-4-5',
      });
      expect(lines).toContainEqual(
        expect.objectContaining({
          type: 'assistant',
          message: expect.objectContaining({
            content: [expect.objectContaining({ type: 'tool_use', name: 'Write' })],
          }),
        }),
      );
      expect(lines).toContainEqual(
        expect.objectContaining({
          type: 'user',
          message: {
            role: 'user',
            content: [
              expect.objectContaining({ type: 'tool_result', content: expect.stringContaining('hello.txt') }),
            ],
          },
        }),
      );
      expect(lines.at(-1)).toMatchObject({
        type: 'result',
        subtype: 'success',
        is_error: false,
        api_error_status: null,
        result: 'Created hello.txt containing "hi".',
        num_turns: 2,
      });

      // What it sent: streaming Messages calls with ?beta=true, the tools declared, the usual headers.
      const calls = requests.filter((request) => request.url.startsWith('/v1/messages'));
      expect(calls.map((call) => [call.url, call.track, call.position])).toEqual([
        ['/v1/messages?beta=true', 'default', 0],
        ['/v1/messages?beta=true', 'default', 1],
      ]);
      expect(calls[0]?.body).toMatchObject({
        model: 'claude-sonnet-4-5',
        stream: true,
        tools: expect.arrayContaining([expect.objectContaining({ name: 'Write' })]),
      });
      expect(calls[0]?.headers).toMatchObject({ 'x-api-key': 'test', 'anthropic-version': '2023-06-01' });
      saveFixture('claude-stream.jsonl', stdout);
    },
    TIMEOUT,
  );

  it(
    'keeps side requests (session title) on their own tracks when nonessential traffic is on',
    async () => {
      const { code, requests } = await runClaude(WRITE_HELLO, 'Create hello.txt containing hi.', {
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined,
      });
      expect(code).toBe(0);
      expect(await readFile(join(temp.root, 'hello.txt'), 'utf8')).toBe('hi');
      const calls = requests.filter((request) => request.url.startsWith('/v1/messages'));
      const agentTurns = calls.filter((call) => call.track === 'default').map((call) => call.position);
      expect(agentTurns).toEqual([0, 1]);
      expect(calls.some((call) => call.track === 'claude-code-title')).toBe(true);
      expect(
        calls.every(
          (call) =>
            call.track === 'default' || call.track === 'claude-code-title' || call.track === 'tool-less',
        ),
      ).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'reports retries and a final API error as api_retry and an is_error result',
    async () => {
      const { code, lines, stdout } = await runClaude(
        {
          tracks: SIDE_TRACKS,
          turns: [{ error: { status: 429, retryAfter: 0 } }],
          whenExhausted: { error: { status: 500 } },
        },
        'hi',
        { CLAUDE_CODE_MAX_RETRIES: '1' },
      );
      expect(code).toBe(1);
      expect(lines).toContainEqual(
        expect.objectContaining({
          type: 'system',
          subtype: 'api_retry',
          error_status: 429,
          error: 'rate_limit',
        }),
      );
      expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: true, api_error_status: 500 });
      saveFixture('claude-stream-api-error.jsonl', stdout);
    },
    TIMEOUT,
  );
});

describe.skipIf(!existsSync(CLAUDE))('examples/scripts/demo.yaml with Claude Code (e2e)', () => {
  it(
    'runs the three demo codons, one Claude Code process each',
    async () => {
      const loaded = await loadScript(join(REPO, 'examples/scripts/demo.yaml'));
      if (!loaded.ok) throw new Error(loaded.error.message);
      provider = await startMockProvider({ script: loaded.script });
      for (const prompt of ['Create hello.txt.', 'Edit hello.txt and list the files.', 'Write a README.']) {
        const { code, lines } = await runClaudeAgainst(provider, prompt, {
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined,
        });
        expect(code).toBe(0);
        const errors = lines.filter(
          (line) => line.type === 'user' && JSON.stringify(line).includes('"is_error":true'),
        );
        expect(errors).toEqual([]);
      }
      expect(await readFile(join(temp.root, 'hello.txt'), 'utf8')).toBe(
        'Hello from Ribosome, edited by codon 2!\n',
      );
      expect(await readFile(join(temp.root, 'README.md'), 'utf8')).toContain('# Ribosome demo');
    },
    TIMEOUT,
  );
});
