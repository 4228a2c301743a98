/**
 * The built-in agent as an MCP client (`ribosome agent --mcp-servers FILE`), a real process against
 * the scripted provider and the SDK-written mark server: the tools it offers, a call and its result,
 * a server that cannot start, and no server process left once the agent has ended.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeLaunchFile } from '../../../src/agents/mcp/launch-file.ts';
import type { McpLaunch } from '../../../src/agents/mcp/mcp-launch.ts';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { MessagesRequestSchema } from '../../../src/llm/schemas.ts';
import {
  commandLine,
  endMarked,
  isAlive,
  processesWithEnv,
} from '../../../src/platform/processes/process-tree.ts';
import { waitForValue } from '../../helpers/processes.ts';
import { jsonLines, killAllTracked, spawnTracked } from '../helpers/processes.ts';
import { BIN, REPO } from '../helpers/repo.ts';
import { makeTempRoot, type TempRoot } from '../helpers/temp-root.ts';

const MARK_SERVER = join(REPO, 'test/fixtures/mcp/mark-server.mjs');
const HANG_SERVER = join(REPO, 'test/fixtures/mcp/hang-server.mjs');

let temp: TempRoot;
let provider: MockProvider | undefined;
/** Marks (HANG_MARK) of the processes a test started: whatever a failing test left is ended. */
const hangMarks: string[] = [];
beforeEach(async () => {
  temp = await makeTempRoot();
});
afterEach(async () => {
  killAllTracked();
  for (const mark of hangMarks.splice(0)) await endMarked('HANG_MARK', mark, 0);
  await provider?.stop();
  provider = undefined;
  await temp.cleanup();
});

const marker = (marks: string, extra: Partial<McpLaunch> = {}): McpLaunch =>
  ({
    kind: 'stdio',
    name: 'marker',
    command: process.execPath,
    args: [MARK_SERVER, '--mark-file', marks],
    env: { MARK_MODE: 'plain' },
    secretEnv: { MARK_SECRET: 'agent-e2e-secret' },
    cwd: temp.root,
    ...extra,
  }) as McpLaunch;

async function runAgent(script: ScriptInput, servers: McpLaunch[]) {
  const spawned = await startAgent(script, servers);
  const finished = await spawned.finished;
  return { ...finished, lines: jsonLines(finished.stdout), requests: provider?.requests ?? [] };
}

async function startAgent(script: ScriptInput, servers: McpLaunch[], env: NodeJS.ProcessEnv = {}) {
  provider = await startMockProvider({ script });
  const file = join(temp.dir, 'mcp.json');
  writeLaunchFile(file, servers);
  return spawnTracked(BIN, ['agent', '--cwd', temp.root, '--mcp-servers', file], {
    cwd: temp.dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: temp.dir,
      ANTHROPIC_BASE_URL: provider.url,
      ANTHROPIC_API_KEY: 'test',
      ...env,
    },
    input: 'Leave a mark.',
  });
}

const MARK_THEN_DONE: ScriptInput = {
  turns: [
    { content: [{ tool_use: { name: 'mcp__marker__leave_mark', input: { text: 'hello' } } }] },
    { content: [{ text: 'Marked.' }] },
  ],
};

describe('ribosome agent with MCP servers (e2e)', () => {
  it('offers the server’s tools as mcp__<server>__<tool>, calls one, and ends the server with the run', async () => {
    const marks = join(temp.dir, 'marks.txt');
    const { code, lines, requests, stderr } = await runAgent(MARK_THEN_DONE, [marker(marks)]);
    expect(code, stderr).toBe(0);

    // Claude Code's init line: the server connected, its tools after the built-in ones.
    expect(lines[0]).toMatchObject({
      type: 'system',
      subtype: 'init',
      mcp_servers: [{ name: 'marker', status: 'connected' }],
      tools: [
        'Bash',
        'Edit',
        'Glob',
        'Grep',
        'Read',
        'Write',
        'mcp__marker__leave_mark',
        'mcp__marker__whoami',
      ],
    });
    // The model was offered the tool with the server's description and input schema.
    const tools = MessagesRequestSchema.parse(requests[0]?.body).tools ?? [];
    expect(tools.find((t) => t.name === 'mcp__marker__leave_mark')).toEqual({
      name: 'mcp__marker__leave_mark',
      description: 'Leaves a mark: appends the text to the mark file.',
      input_schema: {
        type: 'object',
        properties: { text: { type: 'string', description: 'What to write.' } },
        required: ['text'],
      },
    });

    // The call reached the server, with the entry's secret in its environment; its answer came back.
    const mark = JSON.parse(readFileSync(marks, 'utf8')) as { text: string; secret: string; pid: number };
    expect(mark).toMatchObject({ text: 'hello', secret: 'agent-e2e-secret' });
    const result = lines.find((l) => l.type === 'user');
    expect(result?.message).toMatchObject({
      content: [{ type: 'tool_result', content: 'MARK-LEFT: hello', is_error: false }],
    });
    expect(lines.at(-1)).toMatchObject({ type: 'result', is_error: false });
    // The agent closed it: nobody else was there to.
    expect(isAlive(mark.pid)).toBe(false);
  });

  it('a server that cannot start ends the run at once, naming it and quoting its stderr', async () => {
    const broken = marker(join(temp.dir, 'marks.txt'), {
      name: 'broken',
      args: ['-e', 'console.error("broken: missing its config file"); process.exit(3)'],
    });
    const { code, lines, requests } = await runAgent(MARK_THEN_DONE, [broken]);
    expect(code).toBe(1);
    expect(lines[0]).toMatchObject({ subtype: 'init', mcp_servers: [{ name: 'broken', status: 'failed' }] });
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      errors: [
        'MCP server "broken" could not start: it exited before answering; its stderr ended: broken: missing its config file',
      ],
    });
    // Nothing was asked of the model.
    expect(requests).toHaveLength(0);
  });

  // A wrapper (here sh, as npx is one) that forks the real server: sh alone ended, its child would
  // keep the pipes open and the agent waiting until it exits by itself.
  it.each([
    ['sleep 300', 'a child'],
    ['setsid sleep 300', 'a child in a session of its own'],
  ])(
    'a server that hangs at its start (sh -c %j, %s): the run fails at MCP_TIMEOUT, its whole tree ended',
    async (script) => {
      const mark = randomUUID();
      hangMarks.push(mark);
      const hanging = marker('', {
        name: 'slow',
        command: 'sh',
        args: ['-c', script],
        env: { HANG_MARK: mark },
        secretEnv: {},
      });
      const spawned = await startAgent(MARK_THEN_DONE, [hanging], { MCP_TIMEOUT: '3000' });
      // The sleep (found by the mark in its environment) ran: what follows shows it was ended.
      const sleep = await waitForValue(
        'the server’s sleep',
        () => processesWithEnv('HANG_MARK', mark).find((pid) => commandLine(pid) === 'sleep 300'),
        20_000,
      );
      const { code, stdout } = await spawned.finished;
      expect(code).toBe(1);
      expect(jsonLines(stdout).at(-1)).toMatchObject({
        type: 'result',
        is_error: true,
        errors: ['MCP server "slow" could not start: it did not answer within 3000 ms (MCP_TIMEOUT)'],
      });
      // The agent ended while the sleep would still run (300 s, beyond this test's bound): ended with it.
      expect(isAlive(sleep)).toBe(false);
      expect(processesWithEnv('HANG_MARK', mark)).toEqual([]);
      expect(provider?.requests).toHaveLength(0);
    },
  );

  it('a command that is not there is said so', async () => {
    const missing = marker(join(temp.dir, 'marks.txt'), {
      name: 'gone',
      command: 'no-such-mcp-server-binary',
    });
    const { code, lines } = await runAgent(MARK_THEN_DONE, [missing]);
    expect(code).toBe(1);
    expect(lines.at(-1)?.errors).toEqual([
      'MCP server "gone" could not start: no-such-mcp-server-binary was not found (not on PATH, nor a file): install it or give its full path',
    ]);
    expect(existsSync(join(temp.dir, 'marks.txt'))).toBe(false);
  });

  it('SIGTERM while a tool call waits: the call is abandoned, the server and its child end, the run says so', async () => {
    const pidFile = join(temp.dir, 'hang.json');
    const hanger = marker('', { name: 'hanger', args: [HANG_SERVER, '--pid-file', pidFile] });
    const spawned = await startAgent(
      { turns: [{ content: [{ tool_use: { name: 'mcp__hanger__hang', input: {} } }] }] },
      [hanger],
    );
    const hung = await waitForValue(
      'the hanging call',
      () =>
        existsSync(pidFile)
          ? (JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number; child: number })
          : undefined,
      20_000,
    );
    // The agent alone is signalled (as a user's Ctrl-C in a terminal would not reach a server in
    // another group): ending its servers is its own job.
    process.kill(spawned.child.pid ?? -1, 'SIGTERM');
    const { code, stdout } = await spawned.finished;
    expect(code).toBe(1);
    expect(jsonLines(stdout).at(-1)).toMatchObject({
      type: 'result',
      is_error: true,
      terminal_reason: 'aborted',
    });
    expect(isAlive(hung.pid)).toBe(false);
    expect(isAlive(hung.child)).toBe(false);
  });
});
