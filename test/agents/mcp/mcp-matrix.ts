/**
 * MCP servers for each agent CLI, end to end (docs/mcp.md#how-each-agent-gets-them): a real
 * `ribosome run` of one plan whose codon `without` has the SDK test server (test/fixtures/mcp/
 * mark-server.mjs) taken away (`marker: null`), and whose codon `mark`, last, has it, with a secret
 * passed to it by `envFrom`, and a remote server (streamable HTTP, in this process) with a secret header
 * (`headersFrom`). The scripted provider (in this process, so the test sees every request) calls the
 * server's tool by server and tool (`mcp_tool`): each agent's request names it its own way.
 *
 * Checks: the mark appears, with the text the script sent and the secret; the call and its result are
 * journaled as `mcp__marker__leave_mark` with mcpServer and mcpTool; the secret is nowhere else (not
 * in any file of the execution, its journal and logs included, not in any request the provider
 * received, not in the agent's environment as its shell prints it); the codon without the server is
 * not offered its tool and leaves no mark. One plan per agent: the four files run side by side.
 */
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { sandboxSupport } from '../../helpers/sandbox-support.ts';
import { journalRows, killAll, ROOT, runCli, tempDir } from '../../helpers/server-process.ts';

export const MARK_SERVER = join(ROOT, 'test/fixtures/mcp/mark-server.mjs');

/** The prompts the script's tracks are matched on. */
const PROMPTS = {
  mark: 'MCP-MARK: leave a mark with the marker server, then print the environment.',
  without: 'MCP-WITHOUT: try to leave a mark with the marker server.',
} as const;

export type McpAgentSpec = {
  agent: 'claude-code' | 'codex' | 'gemini' | 'opencode';
  /** The plan's model (one the agent accepts). */
  model: string;
  /** The agent's binary (a path or a command on PATH). */
  binary: string;
  /** A call of the agent's own shell tool running `command`. */
  shell: (command: string) => { name: string; input: Record<string, unknown> };
  /** Run the plan again with the user's own configuration (a home of the test's): its plan line. */
  userConfig?: 'agentConfig: user' | 'claudeConfig: user';
  /** The marker server answers only after this long (a server slower to start than the agent waits by default). */
  markerStartAfterMs?: number;
};

/** Tracks for what an agent asks besides its turns (Claude Code's session title, tool-less calls). */
const SIDE_TRACKS: NonNullable<ScriptInput['tracks']> = [
  {
    name: 'title',
    match: { system: 'Generate a concise, sentence-case title' },
    turns: [],
    whenExhausted: { content: [{ text: '{"title": "MCP"}' }] },
  },
  { name: 'tool-less', match: { tools: false }, turns: [], whenExhausted: { content: [{ text: 'OK.' }] } },
];

/** One script for every agent: the MCP call by server and tool, then the agent's own shell tool. */
export function mcpScript(spec: McpAgentSpec, markText: string): ScriptInput {
  const leaveMark = { mcp_tool: { server: 'marker', tool: 'leave_mark', input: { text: markText } } };
  const remoteMark = {
    mcp_tool: { server: 'remote', tool: 'leave_mark', input: { text: `remote-${markText}` } },
  };
  return {
    tracks: [
      ...SIDE_TRACKS,
      { name: 'without', match: { firstUser: 'MCP-WITHOUT' }, turns: [{ content: [leaveMark] }] },
      {
        name: 'mark',
        match: { firstUser: 'MCP-MARK' },
        turns: [
          { content: [{ text: 'Leaving a mark.' }, leaveMark] },
          { content: [remoteMark] },
          { content: [{ tool_use: spec.shell('echo ENV-START; env') }] },
          { content: [{ text: 'Marked, and printed the environment.' }] },
        ],
      },
    ],
    turns: [],
    whenExhausted: {
      error: { status: 400, message: 'mcp matrix: no track of the script answers this request' },
    },
  };
}

/**
 * The plan: the marker server for every codon, taken away from `without`; its secret by envFrom. The
 * agents run in the sandbox where the machine has one (the default, `auto`), the server too (the CLI
 * starts it): the mark file's directory is made writable there (its /tmp is its own).
 */
export function mcpPlan(spec: McpAgentSpec, markFile: string, remoteUrl: string, extra = ''): string {
  return `name: mcp-${spec.agent}
agent: ${spec.agent}
model: ${spec.model}
${extra}
sandbox: { allowWrite: [${JSON.stringify(dirname(markFile))}] }
mcpServers:
  marker:
    command: node
    args: [${JSON.stringify(MARK_SERVER)}, --mark-file, ${JSON.stringify(markFile)}${spec.markerStartAfterMs ? `, --start-after, "${spec.markerStartAfterMs}"` : ''}]
    envFrom: { MARK_SECRET: TEST_MCP_SECRET }
  remote:
    url: ${JSON.stringify(remoteUrl)}
    headersFrom: { X-Api-Key: TEST_MCP_TOKEN }
codons:
  - id: without
    prompt: ${JSON.stringify(PROMPTS.without)}
    mcpServers: { marker: null, remote: null }
  - id: mark
    prompt: ${JSON.stringify(PROMPTS.mark)}
`;
}

export type Mark = {
  text: string;
  secret: string | null;
  pid: number;
  pidNs: string | null;
  cwd: string;
  /** The LLM key variables it was given (names). */
  llmKeys?: string[];
};

export const marksIn = (file: string): Mark[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Mark)
    : [];

/** Every regular file under `dir` holding `needle` (its bytes), as paths relative to `dir`. */
export function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const bytes = Buffer.from(needle);
  const walk = (at: string, rel: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path, join(rel, name));
      else if (stat.isFile() && readFileSync(path).includes(bytes)) found.push(join(rel, name));
    }
  };
  walk(dir, '');
  return found;
}

/**
 * A remote MCP server (streamable HTTP, the SDK's) on 127.0.0.1 in this process: its `leave_mark`
 * appends `{ text, secret }` to `markFile`, `secret` being the X-Api-Key header it was sent.
 */
export async function startRemoteMarker(markFile: string): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer(async (req, res) => {
    const key = req.headers['x-api-key'];
    const server = new McpServer({ name: 'remote', version: '1.0.0' });
    server.registerTool(
      'leave_mark',
      { description: 'Leaves a mark.', inputSchema: { text: z.string() } },
      async ({ text }) => {
        appendFileSync(
          markFile,
          `${JSON.stringify({ text, secret: typeof key === 'string' ? key : null })}\n`,
        );
        return { content: [{ type: 'text', text: `MARK-LEFT: ${text}` }] };
      },
    );
    // Stateless: a server and transport per request.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void Promise.all([transport.close(), server.close()]));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** Long: an agent CLI takes seconds (tens, on a loaded machine) to start, and this plan starts several. */
const TIMEOUT = 600_000;

export function describeMcpAgent(spec: McpAgentSpec): void {
  describeWithClis(`MCP servers: ${spec.agent} against the scripted provider (agents)`, [spec.binary], () => {
    const temps: Array<{ remove(): void }> = [];
    let provider: MockProvider | undefined;
    let remote: { close(): Promise<void> } | undefined;
    afterEach(async () => {
      killAll();
      await Promise.all([provider?.stop(), remote?.close()]);
      provider = undefined;
      remote = undefined;
    });
    afterAll(() => {
      for (const t of temps.splice(0)) t.remove();
    });

    /**
     * Runs the plan to its end with a fresh secret; `user`: with the user's own configuration, a home
     * of the test's (HOME, CODEX_HOME and the XDG directories there), which must not keep it either.
     */
    async function runPlan(user: boolean, userConfig = spec.userConfig) {
      const made = tempDir();
      temps.push(made);
      const secret = `mcp-secret-${randomBytes(24).toString('hex')}`;
      const token = `mcp-token-${randomBytes(24).toString('hex')}`;
      const markText = `mark-from-${spec.agent}`;
      const markFile = join(made.path, 'marks', 'marks.txt');
      mkdirSync(dirname(markFile));
      const exec = join(made.path, 'exec');
      const home = join(made.path, 'home');
      mkdirSync(join(home, '.codex'), { recursive: true });
      // Gemini CLI in the user's configuration needs its auth chosen there, as a user who ran it once has.
      mkdirSync(join(home, '.gemini'));
      writeFileSync(
        join(home, '.gemini/settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
      );
      const planFile = join(made.path, 'plan.yaml');
      const remoteMarks = join(made.path, 'remote-marks.txt');
      const started = await startRemoteMarker(remoteMarks);
      remote = started;
      writeFileSync(planFile, mcpPlan(spec, markFile, started.url, user ? `${userConfig}\n` : ''));
      provider = await startMockProvider({ script: mcpScript(spec, markText) });
      const userEnv = {
        HOME: home,
        CODEX_HOME: join(home, '.codex'),
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local/share'),
        XDG_STATE_HOME: join(home, '.local/state'),
        XDG_CACHE_HOME: join(home, '.cache'),
      };
      const proc = runCli(
        [
          'run',
          planFile,
          '--headless',
          '--exit-when-done',
          '--execution',
          exec,
          '--provider-base-url',
          provider.url,
        ],
        {
          env: {
            TEST_MCP_SECRET: secret,
            TEST_MCP_TOKEN: token,
            ANTHROPIC_API_KEY: 'test-key',
            ...(user ? userEnv : {}),
          },
        },
      );
      const timer = setTimeout(() => proc.kill('SIGKILL'), TIMEOUT - 30_000);
      const { code } = await proc.exited;
      clearTimeout(timer);
      return {
        code,
        stderr: proc.stderr(),
        exec,
        home,
        secret,
        token,
        markText,
        markFile,
        remoteMarks,
        requests: provider.requests,
      };
    }

    const check = async (user: boolean) => {
      const { code, stderr, exec, home, secret, token, markText, markFile, remoteMarks, requests } =
        await runPlan(user);
      const rows = journalRows(exec);
      const completed = rows.filter((r) => r.type === 'codon.completed').map((r) => r.data);
      expect(completed, stderr).toEqual([
        expect.objectContaining({ codonId: 'without', success: true }),
        expect.objectContaining({ codonId: 'mark', success: true }),
      ]);
      expect(code, stderr).toBe(0);

      // The mark, with the text the script sent and the secret: the server ran and was given it; in
      // the agent's sandbox when the machine has one (the CLI started it there).
      expect(marksIn(markFile)).toEqual([expect.objectContaining({ text: markText, secret })]);
      // The agent's own LLM key (every CLI holds one) never reaches the server.
      expect(marksIn(markFile)[0]?.llmKeys).toEqual([]);
      if (sandboxSupport().ok)
        expect(marksIn(markFile)[0]?.pidNs).not.toBe(readlinkSync('/proc/self/ns/pid'));
      // The remote server's, its secret header sent (through the sandbox's network gate when on).
      expect(marksIn(remoteMarks)).toEqual([{ text: `remote-${markText}`, secret: token }]);

      // The call and its result, journaled under the one name every agent's calls get.
      const ofCodon = (id: string) => rows.filter((r) => r.data.codonId === id);
      const calls = ofCodon('mark').filter(
        (r) => r.type === 'assistant.action' && r.data.action === 'tool_use',
      );
      const call = calls.find((r) => r.data.mcpServer === 'marker');
      expect(call?.data).toMatchObject({
        toolName: 'mcp__marker__leave_mark',
        mcpServer: 'marker',
        mcpTool: 'leave_mark',
        toolInput: { text: markText },
      });
      const results = ofCodon('mark').filter((r) => r.type === 'tool.result');
      const result = results.find((r) => r.data.toolUseId === call?.data.toolUseId);
      expect(result?.data).toMatchObject({
        toolName: 'mcp__marker__leave_mark',
        mcpServer: 'marker',
        mcpTool: 'leave_mark',
        isError: false,
        result: expect.stringContaining(`MARK-LEFT: ${markText}`),
      });
      const remoteCall = calls.find((r) => r.data.mcpServer === 'remote');
      expect(remoteCall?.data).toMatchObject({ toolName: 'mcp__remote__leave_mark', mcpTool: 'leave_mark' });

      // The agent's own environment, as its shell printed it, lacks the secret and its variable.
      const printed = results.map((r) => String(r.data.result)).find((text) => text.includes('ENV-START'));
      expect(printed).toContain('PATH=');
      for (const hidden of [secret, token, 'TEST_MCP_SECRET', 'TEST_MCP_TOKEN'])
        expect(printed).not.toContain(hidden);

      // Nowhere else: no file of the execution (journal, logs, the agent's home and the config files
      // that held it while the agent ran: `mark` runs last, so nothing wrote them since), no request
      // the provider received.
      for (const value of [secret, token]) {
        expect(filesHolding(exec, value)).toEqual([]);
        expect(filesHolding(home, value)).toEqual([]);
        expect(JSON.stringify(requests)).not.toContain(value);
      }

      // The codon without the server: not offered its tool (the script's call came back as words),
      // no call, no new mark.
      expect(ofCodon('without').some((r) => r.data.mcpServer !== undefined)).toBe(false);
      expect(ofCodon('without').some((r) => r.json.includes('was not offered'))).toBe(true);
      expect(marksIn(markFile)).toHaveLength(1);
      expect(marksIn(remoteMarks)).toHaveLength(1);
    };

    it(
      'a codon calls the server its plan gives it: the mark, the journaled call, the secret to the server alone; a codon without it cannot',
      {
        timeout: TIMEOUT,
      },
      () => check(false),
    );

    if (spec.userConfig !== undefined) {
      it(`the same with the user's own configuration (${spec.userConfig})`, { timeout: TIMEOUT }, () =>
        check(true),
      );
    } else {
      // An agent that cannot take servers in the user's configuration (Gemini CLI) refuses the codon
      // at its start, saying why, and starts no server.
      it("with the user's own configuration (agentConfig: user) the plan is refused before it runs, saying why", {
        timeout: TIMEOUT,
      }, async () => {
        const { code, stderr, exec, markFile, remoteMarks } = await runPlan(true, 'agentConfig: user');
        expect(code, stderr).toBe(2);
        expect(stderr).toContain('MCP_NOT_SUPPORTED');
        expect(stderr).toContain('Codon "mark" runs Gemini CLI with agentConfig: user');
        expect(existsSync(join(exec, '.ribosome'))).toBe(false);
        expect(marksIn(markFile)).toEqual([]);
        expect(marksIn(remoteMarks)).toEqual([]);
      });
    }
  });
}
