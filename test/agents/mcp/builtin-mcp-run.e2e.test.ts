/**
 * A plan's MCP servers reach the built-in agent in a real `ribosome run` against the scripted provider
 * (started in this process, so the requests it got can be read): the SDK-written mark server over
 * stdio, a remote one over streamable HTTP behind a bearer token, a forceStop while a tool call hangs,
 * and a sandboxed codon whose server runs inside the sandbox.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { MessagesRequestSchema } from '../../../src/llm/schemas.ts';
import {
  commandLine,
  endMarked,
  isAlive,
  processesWithEnv,
} from '../../../src/platform/processes/process-tree.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { pidsWith, waitFor, waitForValue } from '../../helpers/processes.ts';
import { journalRows, killAll, runCli, startServer, tempDir } from '../../helpers/server-process.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/mcp');
const MARK_SERVER = join(FIXTURES, 'mark-server.mjs');
const HANG_SERVER = join(FIXTURES, 'hang-server.mjs');
const TIMEOUT = 120_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  killAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function workDir(): string {
  const made = tempDir();
  cleanups.push(() => made.remove());
  return made.path;
}

async function provider(script: ScriptInput): Promise<MockProvider> {
  const started = await startMockProvider({ script });
  cleanups.push(() => started.stop());
  return started;
}

/** A track per codon, matched on its prompt, that calls `tool` with `input` and then ends. */
const track = (
  name: string,
  tool: string,
  input: Record<string, unknown>,
  more: ScriptInput['turns'] = [],
) => ({
  name,
  match: { firstUser: name },
  turns: [
    { content: [{ tool_use: { name: tool, input } }] },
    ...(more ?? []),
    { content: [{ text: 'Done.' }] },
  ],
});

/** `ribosome run` to its end against `url`, with the sandbox off unless the plan says otherwise. */
async function runToEnd(
  dir: string,
  plan: string,
  url: string,
  env: NodeJS.ProcessEnv,
  extra: string[] = [],
) {
  const planFile = join(dir, 'plan.yaml');
  writeFileSync(planFile, plan);
  const exec = join(dir, 'exec');
  const proc = runCli(
    [
      'run',
      planFile,
      '--headless',
      '--exit-when-done',
      '--execution',
      exec,
      '--provider-base-url',
      url,
      ...extra,
    ],
    { env: { ANTHROPIC_API_KEY: 'test-key', ...env } },
  );
  const timer = setTimeout(() => proc.kill('SIGKILL'), TIMEOUT);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr(), exec };
}

/**
 * A plan whose one codon gets `sh -c SCRIPT` as its MCP server, a wrapper around a `sleep 300` that
 * never answers; the sleep carries HANG_MARK=`mark` in its environment (ended after the test, whatever
 * it left).
 */
function hangingPlan(script: string, mark: string, extra = ''): string {
  cleanups.push(() => endMarked('HANG_MARK', mark, 0).then(() => {}));
  return `name: slow
agent: builtin
${extra}mcpServers:
  slow:
    command: sh
    args: [-c, '${script}']
    env: { HANG_MARK: ${mark} }
codons:
  - id: one
    prompt: SLOW use the tool.
`;
}

/** The pid of the `sleep 300` marked `mark`, once it runs. */
const sleepOf = (mark: string) =>
  waitForValue(
    'the server’s sleep',
    () => processesWithEnv('HANG_MARK', mark).find((pid) => commandLine(pid) === 'sleep 300'),
    60_000,
  );

/**
 * The run ended with its codon failed at MCP_TIMEOUT (3000 ms), the model never asked, nothing said of
 * a message the agent did not take up (it had none: the prompt is none), and the sleep gone: it was
 * ended, since the run ended while it would still have run (300 s, beyond the test's bound).
 */
function expectFailedAtStart(
  ran: { code: number | null; exec: string },
  p: MockProvider,
  sleep: number,
  mark: string,
) {
  expect(ran.code).toBe(1);
  const rows = journalRows(ran.exec);
  expect(rows.find((r) => r.type === 'codon.completed')?.data).toMatchObject({
    codonId: 'one',
    success: false,
    failureReason: {
      message: 'MCP server "slow" could not start: it did not answer within 3000 ms (MCP_TIMEOUT)',
    },
  });
  expect(rows.filter((r) => r.type === 'info' && /take up|took up/.test(String(r.data.message)))).toEqual([]);
  expect(p.requests).toEqual([]);
  expect(isAlive(sleep)).toBe(false);
  expect(processesWithEnv('HANG_MARK', mark)).toEqual([]);
}

/** Every file under `dir`, its bytes as latin1 text (a value in a binary file is found too). */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'latin1') }));
}

const toolNamesOf = (p: MockProvider, prompt: string) =>
  p.requests
    .map((r) => MessagesRequestSchema.parse(r.body))
    .filter((body) => JSON.stringify(body.messages[0]).includes(prompt))
    .map((body) => (body.tools ?? []).map((t) => t.name));

describe('MCP servers of a plan, with the built-in agent (e2e)', () => {
  it('a codon calls the stdio mark server: the mark, the events, the secret only where it belongs; a codon without the server cannot', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = workDir();
    const marks = join(dir, 'marks.txt');
    const secret = `mcp-secret-${process.pid}-${Date.now()}`;
    const p = await provider({
      tracks: [
        // Codon one also prints its agent's environment: had the secret reached the agent, the
        // journaled Bash result would hold it.
        track('MARK-ONE', 'mcp__marker__leave_mark', { text: 'from-one' }, [
          { content: [{ tool_use: { name: 'Bash', input: { command: 'env' } } }] },
        ]),
        track('MARK-TWO', 'mcp__marker__leave_mark', { text: 'from-two' }),
      ],
      turns: [],
    });
    const plan = `name: mcp
agent: builtin
mcpServers:
  marker:
    command: ${process.execPath}
    args: [${MARK_SERVER}, --mark-file, ${marks}]
    envFrom: { MARK_SECRET: MCP_E2E_SECRET }
codons:
  - id: one
    prompt: MARK-ONE leave a mark.
  - id: two
    prompt: MARK-TWO leave a mark too.
    mcpServers:
      marker: null
`;
    const ran = await runToEnd(dir, plan, p.url, { MCP_E2E_SECRET: secret }, ['--no-sandbox']);
    expect(ran.code, ran.stderr).toBe(0);

    // The mark: codon one's call, made by a server that got the secret; none from codon two.
    const lines = readFileSync(marks, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ text: 'from-one', secret })]);

    // The call and its result, journaled with the server and the tool.
    const rows = journalRows(ran.exec);
    const ofCodon = (codonId: string, type: string) =>
      rows.filter((r) => r.type === type && r.data.codonId === codonId).map((r) => r.data);
    expect(ofCodon('one', 'assistant.action').filter((a) => a.action === 'tool_use')[0]).toMatchObject({
      toolName: 'mcp__marker__leave_mark',
      toolInput: { text: 'from-one' },
      mcpServer: 'marker',
      mcpTool: 'leave_mark',
    });
    expect(ofCodon('one', 'tool.result')[0]).toMatchObject({
      toolName: 'mcp__marker__leave_mark',
      result: 'MARK-LEFT: from-one',
      isError: false,
      mcpServer: 'marker',
      mcpTool: 'leave_mark',
    });
    // Codon two was not offered the tool; its call of it went nowhere.
    expect(toolNamesOf(p, 'MARK-ONE')[0]).toContain('mcp__marker__leave_mark');
    expect(toolNamesOf(p, 'MARK-TWO')[0]).not.toContain('mcp__marker__leave_mark');
    expect(ofCodon('two', 'tool.result')[0]).toMatchObject({
      isError: true,
      result: expect.stringContaining('No such tool: mcp__marker__leave_mark'),
    });

    // The secret is nowhere else: not in the execution (journal, logs, the agent's files and
    // sessions), not in what the provider got, not in the run's output.
    const holding = filesUnder(ran.exec).filter((f) => f.text.includes(secret));
    expect(holding.map((f) => f.path)).toEqual([]);
    expect(JSON.stringify(p.requests)).not.toContain(secret);
    expect(ran.stdout + ran.stderr).not.toContain(secret);
    // Bash's `env` ran in the agent's environment, and said nothing of it.
    expect(ofCodon('one', 'tool.result')[1]).toMatchObject({ result: expect.stringContaining('PATH=') });
    // The file that gave the agent its servers is gone with its run.
    expect(filesUnder(ran.exec).filter((f) => /mcp-servers-/.test(f.path))).toEqual([]);
  });

  it('a codon calls a remote server over streamable HTTP, with the bearer token from the environment', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = workDir();
    const token = `remote-token-${process.pid}-${Date.now()}`;
    const remote = await startRemoteServer(token);
    cleanups.push(() => remote.close());
    const p = await provider({
      tracks: [track('REMOTE', 'mcp__remote__leave_mark', { text: 'over http' })],
      turns: [],
    });
    const plan = `name: remote
agent: builtin
mcpServers:
  remote:
    url: ${remote.url}
    bearerTokenFrom: REMOTE_MCP_TOKEN
codons:
  - id: one
    prompt: REMOTE leave a mark there.
`;
    const ran = await runToEnd(dir, plan, p.url, { REMOTE_MCP_TOKEN: token }, ['--no-sandbox']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(remote.marks).toEqual(['over http']);
    // Every request it got carried the token; none went without.
    expect(remote.refused).toBe(0);
    const result = journalRows(ran.exec).find((r) => r.type === 'tool.result');
    expect(result?.data).toMatchObject({
      result: 'REMOTE-MARK: over http',
      mcpServer: 'remote',
      mcpTool: 'leave_mark',
    });
    expect(filesUnder(ran.exec).filter((f) => f.text.includes(token))).toEqual([]);
  });

  it('a server that cannot start fails its codon at the start, saying which and what it printed', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = workDir();
    const p = await provider({ tracks: [track('BROKEN', 'mcp__broken__anything', {})], turns: [] });
    const plan = `name: broken
agent: builtin
mcpServers:
  broken:
    command: ${process.execPath}
    args: [-e, 'console.error("broken: cannot read ./config.json"); process.exit(2)']
codons:
  - id: one
    prompt: BROKEN use the tool.
`;
    const ran = await runToEnd(dir, plan, p.url, {}, ['--no-sandbox']);
    expect(ran.code).toBe(1);
    const completed = journalRows(ran.exec).find((r) => r.type === 'codon.completed');
    expect(completed?.data).toMatchObject({
      codonId: 'one',
      success: false,
      failureReason: {
        message:
          'MCP server "broken" could not start: it exited before answering; its stderr ended: broken: cannot read ./config.json',
      },
    });
    // The model was never asked.
    expect(p.requests).toEqual([]);
  });

  // A wrapper (sh, as npx is one) forks the server; sh alone ended, its child would keep the pipes
  // open and the codon waiting for it to exit by itself. A child that left the tree at once (a double
  // fork) is out of the agent's reach: the pipes it holds are let go, and the run's mark ends it.
  for (const script of ['sleep 300', 'setsid sleep 300', '(setsid sleep 300 &); sleep 300'])
    it(`a server that hangs at its start behind a wrapper (sh -c "${script}"): the codon fails at MCP_TIMEOUT, no process left`, {
      timeout: TIMEOUT,
    }, async () => {
      const dir = workDir();
      const mark = randomUUID();
      const p = await provider({ tracks: [track('SLOW', 'mcp__slow__anything', {})], turns: [] });
      const [sleep, ran] = await Promise.all([
        sleepOf(mark),
        runToEnd(dir, hangingPlan(script, mark), p.url, { MCP_TIMEOUT: '3000' }, ['--no-sandbox']),
      ]);
      expectFailedAtStart(ran, p, sleep, mark);
    });

  it('codon.forceStop while an MCP tool call hangs: the codon stops, no server process is left', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = workDir();
    const pidFile = join(dir, 'hang.json');
    const p = await provider({ tracks: [track('HANG', 'mcp__hanger__hang', {})], turns: [] });
    const planFile = join(dir, 'plan.yaml');
    writeFileSync(
      planFile,
      `name: hang
agent: builtin
mcpServers:
  hanger:
    command: ${process.execPath}
    args: [${HANG_SERVER}, --pid-file, ${pidFile}]
codons:
  - id: one
    prompt: HANG call the tool that never answers.
`,
    );
    const server = await startServer(
      planFile,
      join(dir, 'exec'),
      ['--provider-base-url', p.url, '--no-sandbox'],
      20_000,
      { ANTHROPIC_API_KEY: 'test-key' },
    );
    const client = await RibosomeClient.connect(server.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    cleanups.push(() => client.close());
    const hung = await waitForValue(
      'the hanging tool call',
      () =>
        existsSync(pidFile)
          ? (JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number; child: number })
          : undefined,
      60_000,
    );
    expect(isAlive(hung.pid) && isAlive(hung.child)).toBe(true);
    const completed = client.next('codon.completed', () => true, 60_000);
    client.send('codon.forceStop', { reason: 'the tool hangs' });
    expect((await completed).data).toMatchObject({ codonId: 'one', success: false });
    await waitFor(
      () => !isAlive(hung.pid) && !isAlive(hung.child),
      'the server and its child to end',
      10_000,
    );
    expect(pidsWith(HANG_SERVER)).toEqual([]);
  });
});

describeWithClis('a sandboxed codon and its MCP server (e2e)', ['bwrap', 'socat'], () => {
  it('the stdio server runs inside the sandbox: its mark appears, its pid is in the sandbox’s pid namespace', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = workDir();
    const p = await provider({
      tracks: [
        track('BOXED', 'mcp__marker__leave_mark', { text: 'boxed' }, [
          { content: [{ tool_use: { name: 'mcp__hanger__hang', input: {} } }] },
        ]),
      ],
      turns: [],
    });
    const planFile = join(dir, 'plan.yaml');
    // Both write where a sandboxed agent may: the agent root (their working directory).
    writeFileSync(
      planFile,
      `name: boxed
agent: builtin
sandbox: on
mcpServers:
  marker:
    command: ${process.execPath}
    args: [${MARK_SERVER}]
  hanger:
    command: ${process.execPath}
    args: [${HANG_SERVER}]
codons:
  - id: one
    prompt: BOXED leave a mark, then wait.
`,
    );
    const exec = join(dir, 'exec');
    const root = join(exec, 'agentRoot');
    const server = await startServer(planFile, exec, ['--provider-base-url', p.url], 20_000, {
      ANTHROPIC_API_KEY: 'test-key',
    });
    const client = await RibosomeClient.connect(server.url, {
      mode: 'readandwrite',
      sendPreviousEvents: true,
    });
    cleanups.push(() => client.close());
    const pidFile = join(root, 'mcp-hang.json');
    const hung = await waitForValue(
      'the hanging tool call',
      () =>
        existsSync(pidFile) ? (JSON.parse(readFileSync(pidFile, 'utf8')) as { pid: number }) : undefined,
      60_000,
    );
    const mark = JSON.parse(readFileSync(join(root, 'mcp-marks.txt'), 'utf8')) as {
      text: string;
      cwd: string;
    };
    expect(mark).toMatchObject({ text: 'boxed', cwd: root });
    // The server's own pid (inside) is not its pid here: seen from here, the process running it
    // has two, ours then the sandbox's (NSpid), the second the one it knows itself by.
    const [hostPid] = pidsWith(HANG_SERVER);
    const nspid = /^NSpid:\s*(.*)$/m.exec(readFileSync(`/proc/${hostPid}/status`, 'utf8'))?.[1] ?? '';
    const levels = nspid.split(/\s+/).map(Number);
    expect(levels.length, nspid).toBeGreaterThan(1);
    expect(levels.at(-1)).toBe(hung.pid);
    expect(hostPid).not.toBe(hung.pid);
    const completed = client.next('codon.completed', () => true, 60_000);
    client.send('codon.forceStop', { reason: 'done looking' });
    expect((await completed).data).toMatchObject({ codonId: 'one', success: false });
    await waitFor(() => pidsWith(HANG_SERVER).length === 0, 'the sandboxed server to end', 10_000);
  });
  it('a server that hangs at its start inside the sandbox: the codon fails at MCP_TIMEOUT, no process left', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = workDir();
    const mark = randomUUID();
    const p = await provider({ tracks: [track('SLOW', 'mcp__slow__anything', {})], turns: [] });
    const [sleep, ran] = await Promise.all([
      sleepOf(mark),
      runToEnd(dir, hangingPlan('sleep 300', mark, 'sandbox: on\n'), p.url, { MCP_TIMEOUT: '3000' }),
    ]);
    expectFailedAtStart(ran, p, sleep, mark);
  });

  it('a sandboxed codon reaches its remote server through the network gate', {
    timeout: TIMEOUT,
  }, async () => {
    const dir = workDir();
    const token = `boxed-token-${process.pid}-${Date.now()}`;
    const remote = await startRemoteServer(token);
    cleanups.push(() => remote.close());
    const p = await provider({
      tracks: [track('BOXED-REMOTE', 'mcp__remote__leave_mark', { text: 'through the gate' })],
      turns: [],
    });
    // No network.allow: the gate passes the server's host:port because the plan names it.
    const plan = `name: boxed-remote
agent: builtin
sandbox: on
mcpServers:
  remote:
    url: ${remote.url}
    bearerTokenFrom: REMOTE_MCP_TOKEN
codons:
  - id: one
    prompt: BOXED-REMOTE leave a mark there.
`;
    const ran = await runToEnd(dir, plan, p.url, { REMOTE_MCP_TOKEN: token });
    expect(ran.code, ran.stderr).toBe(0);
    expect(remote.marks).toEqual(['through the gate']);
    expect(journalRows(ran.exec).filter((r) => r.type === 'sandbox.denied')).toEqual([]);
  });
});

/** An SDK streamable-HTTP MCP server on 127.0.0.1 that answers only with `Authorization: Bearer <token>`. */
async function startRemoteServer(token: string) {
  const marks: string[] = [];
  let refused = 0;
  const http: Server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      refused++;
      res.writeHead(401).end('unauthorized');
      return;
    }
    // Stateless: a server and a transport per request, as the SDK's stateless example does.
    const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
    mcp.registerTool(
      'leave_mark',
      { description: 'Leaves a mark in the test.', inputSchema: { text: z.string() } },
      async ({ text }) => {
        marks.push(text);
        return { content: [{ type: 'text', text: `REMOTE-MARK: ${text}` }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    marks,
    get refused() {
      return refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
