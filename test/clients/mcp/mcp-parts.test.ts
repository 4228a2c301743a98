import { describe, expect, it } from 'vitest';
import { diffSummary, diffText } from '../../../src/clients/mcp/diff-text.ts';
import { recentLines } from '../../../src/clients/mcp/event-lines.ts';
import { alreadyThere, endedBy, newsOf } from '../../../src/clients/mcp/follow.ts';
import { admitMcpRequest } from '../../../src/clients/mcp/http-admission.ts';
import { progressOf, type ToolExtra } from '../../../src/clients/mcp/progress.ts';
import { loopbackDirect } from '../../../src/clients/mcp/run-start.ts';
import { defaultExecution, runArgs } from '../../../src/clients/mcp/start-args.ts';
import type { RunStatus } from '../../../src/clients/mcp/status.ts';
import { targetKind } from '../../../src/clients/mcp/target.ts';
import { offeredTools, READING_TOOLS, WRITING_TOOLS } from '../../../src/clients/mcp/tool-names.ts';
import { errorAnswer, ToolError } from '../../../src/clients/mcp/tool-result.ts';
import { asArguments } from '../../../src/clients/mcp/tools/export.ts';
import { CommandError } from '../../../src/core/client/index.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';

const event = (type: string, data: Record<string, unknown>) =>
  ({ id: type, timestamp: '2026-01-01T00:00:00.000Z', type, data }) as unknown as ServerEvent;
const status = (over: Partial<RunStatus>): RunStatus => ({
  execution: '/x',
  server: 'ws://127.0.0.1:1',
  plan: 'p',
  run: undefined,
  done: 0,
  total: 3,
  current: undefined,
  next: undefined,
  idle: undefined,
  codons: [],
  runCost: 0,
  totalCost: 0,
  costEstimated: false,
  ...over,
});
const idle = { reason: 'codon-completed', message: 'idle' };

describe('the tools offered', () => {
  it('read-only offers the reading tools alone; the two lists do not overlap', () => {
    expect(offeredTools(true)).toEqual([...READING_TOOLS]);
    expect(offeredTools(false)).toEqual([...READING_TOOLS, ...WRITING_TOOLS]);
    expect(READING_TOOLS.filter((t) => (WRITING_TOOLS as readonly string[]).includes(t))).toEqual([]);
  });
});

describe('waiting', () => {
  it.each([
    ['idle', undefined, status({ idle }), true],
    ['idle', undefined, status({ current: 'two' }), false],
    ['idle', undefined, status({}), false],
    ['codon_end', undefined, status({ idle }), true],
    ['codon_end', 'two', status({ current: 'two' }), false],
    ['codon_end', 'two', status({ idle }), true],
    ['codon_end', 'three', status({ current: 'two' }), false],
  ] as const)('until %s (codon %s): already there is %s', (until, codon, s, expected) => {
    expect(alreadyThere(until, codon, s)).toBe(expected);
  });

  it('server.idle ends every wait; a codon.completed ends a wait for it or for any', () => {
    const done = (codonId: string) => event('codon.completed', { codonId, success: true });
    expect(endedBy('idle', undefined, event('server.idle', idle))).toBe('idle');
    expect(endedBy('idle', undefined, done('two'))).toBeUndefined();
    expect(endedBy('codon_end', undefined, done('two'))).toBe('codon-ended');
    expect(endedBy('codon_end', 'two', done('two'))).toBe('codon-ended');
    expect(endedBy('codon_end', 'three', done('two'))).toBeUndefined();
    expect(endedBy('codon_end', 'three', event('server.idle', idle))).toBe('idle');
  });

  it('news: codons started and ended with the count, rollbacks, idling; other events none', () => {
    const counts = { done: 2, total: 3 };
    expect(newsOf(event('codon.started', { codonId: 'two' }), counts)).toBe(
      'codon two started (2/3 codons done)',
    );
    expect(newsOf(event('codon.completed', { codonId: 'two', success: false }), counts)).toBe(
      'codon two ended without success (2/3 codons done)',
    );
    expect(newsOf(event('server.idle', idle), { done: 0, total: undefined })).toBe('idle: idle');
    expect(newsOf(event('tool.result', {}), counts)).toBeUndefined();
  });

  it('recentLines: the newest lines, several-line texts split, silent events skipped', () => {
    const events = ['a', 'b', 'c'].map((t) => event('info', { message: t }));
    const describe = (e: ServerEvent) =>
      e.type === 'info' && e.data.message !== 'b' ? `${e.data.message}1\n${e.data.message}2` : undefined;
    expect(recentLines(events, describe, 3)).toEqual(['a2', 'c1', 'c2']);
  });
});

describe('progress notifications', () => {
  it('only for a request with a progress token; progress counts up', () => {
    const sent: unknown[] = [];
    const extra = (meta: Record<string, unknown> | undefined) =>
      ({
        _meta: meta,
        sendNotification: async (n: unknown) => {
          sent.push(n);
        },
      }) as unknown as ToolExtra;
    progressOf(extra(undefined))('nothing');
    expect(sent).toEqual([]);
    const say = progressOf(extra({ progressToken: 7 }));
    say('one');
    say('two');
    expect(sent).toEqual([
      { method: 'notifications/progress', params: { progressToken: 7, progress: 1, message: 'one' } },
      { method: 'notifications/progress', params: { progressToken: 7, progress: 2, message: 'two' } },
    ]);
  });
});

describe('starting a plan', () => {
  it('runArgs: headless on a dynamic port in its execution, with what the request sets', () => {
    expect(
      runArgs({
        plan: '/p.yaml',
        execution: '/e',
        fresh: false,
        autostart: false,
        exitWhenDone: true,
        scriptedProvider: '/s.yaml',
        vars: { A: '1' },
        maxCostUsd: 2.5,
      }),
    ).toEqual([
      'run',
      '/p.yaml',
      '--headless',
      '--port',
      '0',
      '--execution',
      '/e',
      '--no-autostart',
      '--exit-when-done',
      '--scripted-provider',
      '/s.yaml',
      '--var',
      'A=1',
      '--max-cost',
      '2.5',
    ]);
  });

  it('defaultExecution: ./ribosome-runs/<plan>, a new one beside it when fresh and that one has runs', () => {
    const now = new Date('2026-01-02T03:04:05.678Z');
    expect(defaultExecution('/w', 'demo', { fresh: true, hasRuns: false, now })).toEqual({
      dir: '/w/ribosome-runs/demo',
      fresh: false,
    });
    expect(defaultExecution('/w', 'demo', { fresh: false, hasRuns: true, now }).dir).toBe(
      '/w/ribosome-runs/demo',
    );
    expect(defaultExecution('/w', 'demo', { fresh: true, hasRuns: true, now }).dir).toBe(
      '/w/ribosome-runs/demo-2026-01-02T03-04-05-678Z',
    );
  });

  it('targetKind: a ws:// address, a directory, or left out', () => {
    expect(targetKind('ws://127.0.0.1:1')).toBe('url');
    expect(targetKind('runs/demo')).toBe('dir');
    expect(targetKind(undefined)).toBe('default');
    expect(targetKind(' ')).toBe('default');
  });
});

describe('tool errors', () => {
  it('a refusal as said, a server refusal with its code, anything else marked as a failure', () => {
    const text = (r: ReturnType<typeof errorAnswer>) => (r.content[0] as { text: string }).text;
    expect(errorAnswer(new ToolError('give a codon'))).toMatchObject({ isError: true });
    expect(text(errorAnswer(new ToolError('give a codon')))).toBe('give a codon');
    const refused = new CommandError(
      event('error', { message: 'no such codon', code: 'UNKNOWN_CODON', fatal: false }) as never,
    );
    expect(text(errorAnswer(refused))).toBe('UNKNOWN_CODON: no such codon');
    expect(text(errorAnswer(new Error('boom')))).toBe('the tool failed: boom');
  });
});

describe('a codon diff', () => {
  const point = (sha: string, codonId: string, checkpointType: 'completed' | 'rig-setup') => ({
    sha,
    codonId,
    codonName: codonId,
    checkpointType,
    status: 'completed' as const,
    timestamp: '2026-01-01T00:00:00.000Z',
  });
  const range = {
    from: point('a'.repeat(40), 'one', 'completed'),
    to: point('b'.repeat(40), 'two', 'completed'),
  };

  it('reads as a unified diff, headed by what it compares', () => {
    const diff = {
      from: range.from.sha,
      to: range.to.sha,
      truncated: false,
      limitBytes: 100,
      files: [
        {
          path: 'hello.txt',
          status: 'modified' as const,
          binary: false,
          additions: 1,
          deletions: 1,
          hunks: [
            {
              oldStart: 1,
              oldLines: 1,
              newStart: 1,
              newLines: 1,
              lines: [
                { kind: 'del' as const, text: 'Hello' },
                { kind: 'add' as const, text: 'Hi\u001b[2J' },
              ],
            },
          ],
        },
        { path: 'new.bin', status: 'added' as const, binary: true, additions: 0, deletions: 0, hunks: [] },
      ],
    };
    expect(diffText('two', range, diff)).toBe(
      [
        'codon two: aaaaaaaaaaaa (one completed) -> bbbbbbbbbbbb (two completed)',
        '--- a/hello.txt',
        '+++ b/hello.txt',
        '@@ -1,1 +1,1 @@',
        '-Hello',
        '+Hi␛[2J',
        '--- /dev/null',
        '+++ b/new.bin',
        '(binary file)',
      ].join('\n'),
    );
    expect(diffSummary(diff).map((f) => f.path)).toEqual(['hello.txt', 'new.bin']);
  });

  it('no change says so', () => {
    const empty = { from: 'a', to: 'b', truncated: false, limitBytes: 1, files: [] };
    expect(diffText('two', range, empty)).toMatch(/\nno changes$/);
  });
});

describe('admitting an HTTP request', () => {
  const facts = { url: '/mcp', origin: undefined, host: '127.0.0.1:4711', authorization: undefined };
  const open = { token: undefined, allowOrigins: [] };
  const locked = { token: 't'.repeat(20), allowOrigins: [] };

  it.each([
    ['another path', { ...facts, url: '/' }, open, 404],
    ['no token asked, loopback host', facts, open, 'ok'],
    ['no token asked, a rebound name', { ...facts, host: 'evil.example:4711' }, open, 403],
    ['a page of another origin', { ...facts, origin: 'http://evil.example' }, open, 403],
    ['the token missing', facts, locked, 401],
    ['a wrong token', { ...facts, authorization: 'Bearer wrong' }, locked, 403],
    [
      'the token, any host',
      { ...facts, host: 'ribosome.lan:80', authorization: `Bearer ${'t'.repeat(20)}` },
      locked,
      'ok',
    ],
    [
      'an allowed origin',
      { ...facts, origin: 'http://ide.local' },
      { ...open, allowOrigins: ['http://ide.local'] },
      'ok',
    ],
  ] as const)('%s', (_what, request, access, expected) => {
    const verdict = admitMcpRequest(request, access);
    expect(verdict.ok ? 'ok' : verdict.status).toBe(expected);
  });
});

describe("export: the command line's words as the tool's arguments", () => {
  it("names toBranch, repo and start_plan's workspace instead of the flags", () => {
    expect(
      asArguments(
        'export: this execution was not started from a workspace (--workspace); name the repository with --repo PATH',
      ),
    ).toBe(
      'export: this execution was not started from a workspace (start_plan workspace); name the repository with repo',
    );
    expect(asArguments('export: --repo and --force go with --to-branch only')).toBe(
      'export: repo and force go with toBranch only',
    );
  });
});

describe('a run started from inside a sandbox', () => {
  it('reaches loopback directly, past the proxy it inherits; without a proxy nothing changes', () => {
    const env = loopbackDirect({ HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: 'example.com' });
    expect(env.NO_PROXY).toBe('example.com,127.0.0.1,localhost,::1');
    expect(env.no_proxy).toBe(env.NO_PROXY);
    const plain = { PATH: '/bin' };
    expect(loopbackDirect(plain)).toBe(plain);
  });
});
