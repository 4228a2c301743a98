import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toolboxOf } from '../../../src/agents/builtin/mcp-tools.ts';
import { readLaunchFile, writeLaunchFile } from '../../../src/agents/mcp/launch-file.ts';
import { type McpConnection, stdioEnv } from '../../../src/agents/mcp/mcp-connection.ts';
import type { McpLaunch } from '../../../src/agents/mcp/mcp-launch.ts';
import { mcpToolName } from '../../../src/agents/mcp/tool-names.ts';
import { mcpToolOutcome } from '../../../src/agents/mcp/tool-result.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ribosome-mcp-parts-'));
  dirs.push(dir);
  return dir;
};

const STDIO: Extract<McpLaunch, { kind: 'stdio' }> = {
  kind: 'stdio',
  name: 'files',
  command: 'node',
  args: ['s.js'],
  env: { MODE: 'ro' },
  secretEnv: { TOKEN: 'secret-value' },
  cwd: '/exec/agentRoot',
};

describe('MCP tool names', () => {
  it('are mcp__<server>__<tool>, as Claude Code names them', () => {
    expect(mcpToolName('marker', 'leave_mark')).toBe('mcp__marker__leave_mark');
    expect(mcpToolName('my-server', 'get-page')).toBe('mcp__my-server__get-page');
  });

  it('replace what a model API refuses in a tool name', () => {
    expect(mcpToolName('web', 'fetch.page v2')).toBe('mcp__web__fetch_page_v2');
  });
});

describe('an MCP tool result as the agent’s tool result', () => {
  it('joins text content and keeps isError', () => {
    expect(
      mcpToolOutcome({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
        isError: true,
      }),
    ).toEqual({ text: 'one\ntwo', isError: true });
  });

  it('names other content instead of dropping it', () => {
    const { text } = mcpToolOutcome({
      content: [
        { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/zip' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
        { type: 'hologram' },
      ],
    });
    expect(text.split('\n')).toEqual([
      '[image image/png, 5 bytes: not shown]',
      '[audio audio/wav, 3 bytes: not shown]',
      '[resource file:///a.txt]',
      'inside',
      '[resource file:///b.bin, application/zip, 3 bytes: not shown]',
      '[resource link file:///c (c)]',
      '[hologram content: not shown]',
    ]);
  });

  it('falls back to structured content, the older toolResult, or says there was nothing', () => {
    expect(mcpToolOutcome({ content: [], structuredContent: { n: 1 } })).toEqual({
      text: '{"n":1}',
      isError: false,
    });
    expect(mcpToolOutcome({ toolResult: 'old' })).toEqual({ text: '"old"', isError: false });
    expect(mcpToolOutcome({ content: [] })).toEqual({
      text: '(the tool returned no content)',
      isError: false,
    });
  });
});

describe('a stdio server’s environment', () => {
  it('is the agent’s without its LLM credentials, then the entry’s env and secrets', () => {
    expect(
      stdioEnv(STDIO, {
        PATH: '/bin',
        ANTHROPIC_API_KEY: 'llm-key',
        ANTHROPIC_AUTH_TOKEN: 'llm-token',
        CLAUDE_CODE_OAUTH_TOKEN: 'oauth',
        MODE: 'overridden',
      }),
    ).toEqual({ PATH: '/bin', MODE: 'ro', TOKEN: 'secret-value' });
  });
});

describe('the MCP servers file of `ribosome agent`', () => {
  it('is written for its owner alone and read back as it was', () => {
    const file = join(tempDir(), 'mcp.json');
    const http: McpLaunch = {
      kind: 'http',
      name: 'web',
      url: 'http://127.0.0.1:9/mcp',
      headers: { 'X-A': 'a' },
      secretHeaders: { Authorization: 'Bearer t' },
    };
    writeLaunchFile(file, [STDIO, http]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readLaunchFile(file)).toEqual({ ok: true, servers: [STDIO, http] });
  });

  it('says what is wrong with a file that is not one', () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ servers: [{ kind: 'stdio', name: 'x' }] }));
    const read = readLaunchFile(bad);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.message).toMatch(/^the MCP servers file .*bad\.json is not one: .*command/);
    writeFileSync(bad, '{');
    expect(readLaunchFile(bad)).toEqual({ ok: false, message: `the MCP servers file ${bad} is not JSON` });
    expect(readLaunchFile(join(dir, 'none.json'))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^cannot read the MCP servers file/),
    });
    expect(readFileSync(bad, 'utf8')).toBe('{');
  });
});

describe('the built-in agent’s MCP toolbox', () => {
  const connection = (name: string, tools: string[], calls: string[]): McpConnection => ({
    name,
    pid: undefined,
    tools: tools.map((tool) => ({
      name: tool,
      description: `${tool} does it`,
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} },
    })),
    call: async (tool, args) => {
      calls.push(`${name}/${tool} ${JSON.stringify(args)}`);
      return { text: `${tool} done`, isError: false };
    },
    close: async () => {},
  });

  it('offers each tool under its full name and sends a call to its server', async () => {
    const calls: string[] = [];
    const box = toolboxOf(
      [connection('a', ['one', 'two'], calls), connection('b', ['one'], calls)],
      [
        { name: 'a', status: 'connected' },
        { name: 'b', status: 'connected' },
      ],
      1000,
    );
    expect(box.definitions).toEqual([
      { name: 'mcp__a__one', description: 'one does it', input_schema: { type: 'object', properties: {} } },
      { name: 'mcp__a__two', description: 'two does it', input_schema: { type: 'object', properties: {} } },
      { name: 'mcp__b__one', description: 'one does it', input_schema: { type: 'object', properties: {} } },
    ]);
    const signal = new AbortController().signal;
    expect(await box.run('mcp__b__one', { x: 1 }, signal)).toEqual({ content: 'one done', isError: false });
    expect(box.run('Read', {}, signal)).toBeUndefined();
    expect(calls).toEqual(['b/one {"x":1}']);
  });

  it('leaves out a second tool whose name reads the same', () => {
    const box = toolboxOf([connection('a', ['x.y', 'x_y'], [])], [{ name: 'a', status: 'connected' }], 1000);
    expect(box.definitions.map((d) => d.name)).toEqual(['mcp__a__x_y']);
  });
});
