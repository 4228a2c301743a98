import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentRun, AgentStart } from '../../../src/agents/agent-adapter.ts';
import { exitStatusOf, GeminiAdapter } from '../../../src/agents/gemini/gemini-adapter.ts';
import type { StreamLine } from '../../../src/agents/stream-line.ts';
import { classifyOutcome } from '../../../src/engine/outcome/failure.ts';
import { tempDir } from '../../helpers/server-process.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/gemini');

/** A result line as the engine's outcome holds it. */
function resultOf(line: StreamLine | undefined) {
  if (line?.type !== 'result') throw new Error(`not a result: ${JSON.stringify(line)}`);
  return {
    isError: line.is_error,
    apiErrorStatus: line.api_error_status ?? null,
    message: line.result ?? '',
  };
}

/**
 * The gemini agent on a fake `gemini` (RIBOSOME_GEMINI_BIN): a shell script that records its arguments,
 * environment and stdin, prints the stream-json lines it is given and exits with the code it is given.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const c of cleanups.splice(0)) c();
});

const SESSION = '6878d7e5-6cb4-456e-9a17-e2f8457e6b73';
const init = `{"type":"init","timestamp":"t","session_id":"${SESSION}","model":"gemini-2.5-flash"}`;
const success = '{"type":"result","timestamp":"t","status":"success","stats":{"models":{}}}';

type Fake = { dir: string; runs(): Array<{ args: string[]; env: Record<string, string>; stdin: string }> };

/** A fake gemini that prints `stdout` (and `stderr`) and exits with `code` on every run. */
function fakeGemini(stdout: string[], code = 0, stderr = ''): Fake {
  const t = tempDir();
  cleanups.push(t.remove);
  const out = join(t.path, 'stdout.jsonl');
  writeFileSync(out, stdout.length > 0 ? `${stdout.join('\n')}\n` : '');
  const err = join(t.path, 'stderr.txt');
  writeFileSync(err, stderr);
  const log = join(t.path, 'runs');
  mkdirSync(log);
  const fake = join(t.path, 'gemini');
  writeFileSync(
    fake,
    `#!/bin/sh
n=$(ls '${log}' | wc -l)
d='${log}'/$n; mkdir "$d"
for a in "$@"; do printf '%s\\n' "$a"; done > "$d/args"
env > "$d/env"
cat > "$d/stdin"
cat '${out}'
cat '${err}' >&2
exit ${code}
`,
  );
  chmodSync(fake, 0o755);
  vi.stubEnv('RIBOSOME_GEMINI_BIN', fake);
  return {
    dir: t.path,
    runs: () =>
      readdirSorted(log).map((n) => {
        const d = join(log, n);
        const env = Object.fromEntries(
          readFileSync(join(d, 'env'), 'utf8')
            .split('\n')
            .filter((l) => l.includes('='))
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        );
        return {
          args: readFileSync(join(d, 'args'), 'utf8').trimEnd().split('\n'),
          env,
          stdin: readFileSync(join(d, 'stdin'), 'utf8'),
        };
      }),
  };
}

function readdirSorted(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort((a, b) => Number(a) - Number(b)) : [];
}

function start(
  fake: Fake,
  config: 'isolated' | 'user' = 'isolated',
  extra: Partial<AgentStart> = {},
): AgentRun {
  return new GeminiAdapter({ config }).start({
    prompt: 'Do it.',
    model: 'gemini-2.5-flash',
    cwd: fake.dir,
    env: {},
    providerBaseUrl: 'http://127.0.0.1:9/p/0/',
    stateDir: join(fake.dir, 'state'),
    mark: 'gemini-adapter-test',
    ...extra,
  });
}

async function drain(run: AgentRun): Promise<StreamLine[]> {
  const lines: StreamLine[] = [];
  for await (const line of run.lines) lines.push(line);
  await run.exited;
  return lines;
}

describe('gemini agent: how Gemini CLI is started', () => {
  it('isolated: the prompt as an argument with stdin closed, its own home and settings, the provider and a placeholder key', async () => {
    const fake = fakeGemini([init, success]);
    vi.stubEnv('GEMINI_API_KEY', '');
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-secret');
    const lines = await drain(start(fake));
    expect(lines.map((l) => l.type)).toEqual(['system', 'result']);
    const [run] = fake.runs();
    expect(run?.args).toEqual([
      '-p',
      'Do it.',
      '--output-format',
      'stream-json',
      '--yolo',
      '--skip-trust',
      '-m',
      'gemini-2.5-flash',
    ]);
    expect(run?.stdin).toBe('');
    const home = join(fake.dir, 'state', 'gemini-home');
    expect(run?.env).toMatchObject({
      HOME: home,
      TMPDIR: join(fake.dir, 'state', 'gemini-tmp'),
      GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9/p/0',
      GEMINI_API_KEY: 'ribosome-offline',
      GEMINI_CLI_NO_RELAUNCH: 'true',
      RIBOSOME_AGENT_RUN: 'gemini-adapter-test',
    });
    expect(run?.env.ANTHROPIC_API_KEY).toBeUndefined();
    const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'));
    expect(settings).toMatchObject({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { enableAutoUpdate: false, maxAttempts: 3 },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
    });
  });

  it("the server's default provider (Anthropic's) is Google's API for it; its key from GEMINI_API_KEY", async () => {
    const fake = fakeGemini([init, success]);
    vi.stubEnv('GEMINI_API_KEY', 'g-key');
    await drain(start(fake, 'isolated', { providerBaseUrl: 'https://api.anthropic.com' }));
    expect(fake.runs()[0]?.env).toMatchObject({
      GOOGLE_GEMINI_BASE_URL: 'https://generativelanguage.googleapis.com',
      GEMINI_API_KEY: 'g-key',
    });
  });

  it('RIBOSOME_GEMINI_MAX_ATTEMPTS bounds its retries of a model request', async () => {
    const fake = fakeGemini([init, success]);
    vi.stubEnv('RIBOSOME_GEMINI_MAX_ATTEMPTS', '1');
    await drain(start(fake));
    const settings = readFileSync(join(fake.dir, 'state', 'gemini-home', '.gemini', 'settings.json'), 'utf8');
    expect(JSON.parse(settings).general.maxAttempts).toBe(1);
  });

  it("user: the user's own home and settings, untouched", async () => {
    const fake = fakeGemini([init, success]);
    vi.stubEnv('HOME', '/home/someone');
    await drain(start(fake, 'user'));
    expect(fake.runs()[0]?.env.HOME).toBe('/home/someone');
    expect(existsSync(join(fake.dir, 'state', 'gemini-home'))).toBe(false);
  });

  it('systemPrompt replaces its system prompt (GEMINI_SYSTEM_MD); appendSystemPrompt is the GEMINI.md of its home', async () => {
    const fake = fakeGemini([init, success]);
    await drain(
      start(fake, 'isolated', { systemPrompt: 'You are terse.', appendSystemPrompt: 'Write tests.' }),
    );
    const env = fake.runs()[0]?.env ?? {};
    expect(readFileSync(env.GEMINI_SYSTEM_MD ?? '', 'utf8')).toBe('You are terse.\n');
    expect(readFileSync(join(env.HOME ?? '', '.gemini', 'GEMINI.md'), 'utf8')).toBe('Write tests.\n');
    // A later codon without one leaves none behind.
    await drain(start(fake));
    expect(existsSync(join(env.HOME ?? '', '.gemini', 'GEMINI.md'))).toBe(false);
    expect(fake.runs()[1]?.env.GEMINI_SYSTEM_MD).toBeUndefined();
  });

  it("the data directory: a policy denying its writing tools, the link's target included for reading", async () => {
    const fake = fakeGemini([init, success]);
    const target = join(fake.dir, 'data');
    mkdirSync(target);
    const link = join(fake.dir, 'ribosome-data');
    symlinkSync(target, link);
    await drain(start(fake, 'isolated', { dataDir: link }));
    const args = fake.runs()[0]?.args ?? [];
    const policy = args[args.indexOf('--policy') + 1] ?? '';
    expect(args[args.indexOf('--include-directories') + 1]).toBe(target);
    expect(readFileSync(policy, 'utf8')).toContain('toolName = ["write_file", "replace"]');
    expect(readFileSync(policy, 'utf8')).toContain('decision = "deny"');
  });

  it("user: appendSystemPrompt is refused at start (it would be the user's own GEMINI.md)", async () => {
    const fake = fakeGemini([init, success]);
    const run = start(fake, 'user', { appendSystemPrompt: 'Write tests.' });
    expect(await run.exited).toMatchObject({ type: 'error' });
    expect(run.startFailure).toMatch(
      /appendSystemPrompt only in a configuration of its own \(agentConfig: isolated\)/,
    );
    expect(fake.runs()).toEqual([]);
  });

  it('continuing a session forks it from its file (--session-file); without the file, --resume', async () => {
    const fake = fakeGemini([init, success]);
    const chats = join(fake.dir, 'state', 'gemini-home', '.gemini', 'tmp', 'work', 'chats');
    mkdirSync(chats, { recursive: true });
    const file = join(chats, `session-2026-11-26T21-12-${SESSION.slice(0, 8)}.jsonl`);
    writeFileSync(file, `{"sessionId":"${SESSION}","lastUpdated":"2026-11-26T21:12:08.343Z"}\n`);
    await drain(start(fake, 'isolated', { resumeSessionId: SESSION }));
    await drain(start(fake, 'isolated', { resumeSessionId: 'aaaaaaaa-0000-0000-0000-000000000000' }));
    const [forked, resumed] = fake.runs();
    expect(forked?.args.slice(-2)).toEqual(['--session-file', file]);
    expect(resumed?.args.slice(-2)).toEqual(['--resume', 'aaaaaaaa-0000-0000-0000-000000000000']);
  });

  it('a message sent while it works is a follow-up turn resuming the same session, in place', async () => {
    const fake = fakeGemini([init, success]);
    const run = start(fake);
    expect(run.send('Also add a README.')).toBe(true);
    const lines = await drain(run);
    expect(lines.filter((l) => l.type === 'result')).toHaveLength(2);
    const [, second] = fake.runs();
    expect(second?.args.slice(0, 2)).toEqual(['-p', 'Also add a README.']);
    expect(second?.args.slice(-2)).toEqual(['--resume', SESSION]);
    expect(second?.env.RIBOSOME_AGENT_RUN).toBe('gemini-adapter-test');
  });

  it.each([
    [173, 429],
    [244, 500],
  ])(
    'an API error whose text gives no status takes it from the exit code (%s -> %s)',
    async (code, status) => {
      const failed = `{"type":"result","timestamp":"t","status":"error","error":{"type":"unknown","message":"[API Error: Scripted ${status}]"},"stats":{"models":{}}}`;
      const fake = fakeGemini([init, failed], code);
      const lines = await drain(start(fake));
      expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: true, api_error_status: status });
    },
  );

  it("exit 41 without a result: the failure quotes Gemini CLI's stderr and says what to set (trial 18 M5)", async () => {
    const fake = fakeGemini([], 41, readFileSync(join(FIXTURES, 'no-auth.stderr'), 'utf8'));
    const lines = await drain(start(fake, 'user'));
    const last = lines.at(-1);
    expect(last).toMatchObject({ type: 'result', is_error: true, api_error_status: null });
    const message = last?.type === 'result' ? (last.result ?? '') : '';
    // What to set first (a one-line view keeps a message's start), then what Gemini CLI said.
    expect(message).toMatch(
      /^Gemini CLI has no auth method it can use: .*security\.auth\.selectedType.*"gemini-api-key".*run gemini once/,
    );
    expect(message).toMatch(
      /Gemini CLI exited without reporting a result \(exit code 41; its stderr ended: /,
    );
    expect(message).toContain('Invalid auth method selected.');
    expect(
      classifyOutcome({ exit: { type: 'error', code: 41 }, timedOut: false, result: resultOf(last) }),
    ).toMatchObject({ failureReason: { type: 'unknown', message } });
  });

  it('a 404 whose text Gemini CLI passes on without a status (exit 1): its stderr report says 404 (trial 18 L2)', async () => {
    const failed = `{"type":"result","timestamp":"t","status":"error","error":{"type":"unknown","message":"[API Error: no such model here]"},"stats":{"models":{}}}`;
    const fake = fakeGemini(
      [init, failed],
      1,
      readFileSync(join(FIXTURES, 'model-not-found.stderr'), 'utf8'),
    );
    const last = (await drain(start(fake))).at(-1);
    expect(last).toMatchObject({ type: 'result', is_error: true, api_error_status: 404 });
    expect(
      classifyOutcome({ exit: { type: 'error', code: 1 }, timedOut: false, result: resultOf(last) }),
    ).toMatchObject({ failureReason: { type: 'api-error', retriable: false } });
  });

  it('missing: the codon fails at once saying how to install it', async () => {
    const fake = fakeGemini([]);
    vi.stubEnv('RIBOSOME_GEMINI_BIN', join(fake.dir, 'no-gemini'));
    const run = start(fake);
    expect(await run.exited).toEqual({ type: 'error', code: 127 });
    expect(run.startFailure).toMatch(
      /ENOENT.*RIBOSOME_GEMINI_BIN=\S*no-gemini: not found.*npm install -g @google\/gemini-cli/,
    );
  });
});

describe('exitStatusOf', () => {
  it.each([
    [{ type: 'error', code: 173 }, 429],
    [{ type: 'error', code: 144 }, 400],
    [{ type: 'error', code: 247 }, 503],
    [{ type: 'error', code: 1 }, null],
    [{ type: 'error', code: 41 }, null],
    [{ type: 'success' }, null],
    [{ type: 'killed', signal: 'SIGTERM' }, null],
  ] as const)('%j -> %s', (exit, status) => {
    expect(exitStatusOf(exit)).toBe(status);
  });
});
