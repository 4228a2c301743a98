/**
 * Each agent CLI's own configuration of a codon's MCP servers (docs/mcp.md#how-each-agent-gets-them):
 * what Ribosome writes for Claude Code, Codex, Gemini CLI and opencode. The real CLIs read these in
 * test/agents/mcp/mcp-*.agents.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { claudeMcpConfig } from '../../../src/agents/claude-code/claude-mcp.ts';
import { codexMcpOverrides, codexMcpTables } from '../../../src/agents/codex/codex-mcp.ts';
import { GeminiAdapter } from '../../../src/agents/gemini/gemini-adapter.ts';
import { geminiMcpServers, USER_CONFIG_MCP } from '../../../src/agents/gemini/gemini-mcp.ts';
import type { McpLaunch } from '../../../src/agents/mcp/mcp-launch.ts';
import { opencodeMcp } from '../../../src/agents/opencode/opencode-mcp.ts';

const ROOT = '/exec/agentRoot';
const stdio: McpLaunch = {
  kind: 'stdio',
  name: 'marker',
  command: 'node',
  args: ['mark-server.mjs'],
  env: { MODE: 'test' },
  secretEnv: { MARK_SECRET: 's3cret' },
  cwd: ROOT,
};
const remote: McpLaunch = {
  kind: 'http',
  name: 'search',
  url: 'https://mcp.example.com/mcp',
  headers: { 'X-Client': 'ribosome' },
  secretHeaders: { Authorization: 'Bearer t0ken' },
};

describe('Claude Code: the --mcp-config file', () => {
  it('each server with its secrets, a stdio one started in its cwd by a shell when that is not the agent root', () => {
    expect(JSON.parse(claudeMcpConfig([stdio, remote], ROOT))).toEqual({
      mcpServers: {
        marker: {
          type: 'stdio',
          // Through env -u: Claude Code's own LLM key never reaches a server.
          command: '/usr/bin/env',
          args: [...UNSET, '--', 'node', 'mark-server.mjs'],
          env: { MODE: 'test', MARK_SECRET: 's3cret' },
        },
        search: {
          type: 'http',
          url: 'https://mcp.example.com/mcp',
          headers: { 'X-Client': 'ribosome', Authorization: 'Bearer t0ken' },
        },
      },
    });
    const elsewhere = JSON.parse(claudeMcpConfig([{ ...stdio, cwd: '/srv/tools' }], ROOT));
    expect(elsewhere.mcpServers.marker).toMatchObject({
      command: '/usr/bin/env',
      args: [
        ...UNSET,
        '--',
        '/bin/sh',
        '-c',
        'cd "$1" && shift && exec "$@"',
        'sh',
        '/srv/tools',
        'node',
        'mark-server.mjs',
      ],
    });
    // A key the entry gives its server itself is kept.
    const keyed = JSON.parse(claudeMcpConfig([{ ...stdio, secretEnv: { OPENAI_API_KEY: 'sk-x' } }], ROOT));
    expect(keyed.mcpServers.marker.args).not.toContain('OPENAI_API_KEY');
    expect(keyed.mcpServers.marker.args).toContain('ANTHROPIC_API_KEY');
  });
});

const UNSET = [
  '-u',
  'ANTHROPIC_API_KEY',
  '-u',
  'ANTHROPIC_AUTH_TOKEN',
  '-u',
  'CLAUDE_CODE_OAUTH_TOKEN',
  '-u',
  'OPENAI_API_KEY',
  '-u',
  'GEMINI_API_KEY',
  '-u',
  'GOOGLE_API_KEY',
];

describe('Codex', () => {
  it('isolated: [mcp_servers.<name>] tables for its own config.toml, secrets written in', () => {
    expect(codexMcpTables([stdio, remote])).toBe(
      [
        '[mcp_servers.marker]',
        'command = "node"',
        'args = ["mark-server.mjs"]',
        'cwd = "/exec/agentRoot"',
        'env = { "MODE" = "test", "MARK_SECRET" = "s3cret" }',
        '',
        '[mcp_servers.search]',
        'url = "https://mcp.example.com/mcp"',
        'http_headers = { "X-Client" = "ribosome", "Authorization" = "Bearer t0ken" }',
        '',
      ].join('\n'),
    );
  });

  it('user: -c settings that name no secret, the secrets in its environment, emptied for its shell', () => {
    const overrides = codexMcpOverrides([stdio, remote]);
    if (!overrides.ok) throw new Error(overrides.message);
    expect(overrides.settings.join(' ')).not.toMatch(/s3cret|t0ken/);
    expect(overrides.settings).toEqual([
      'mcp_optional_startup_grace_ms=30000',
      'mcp_servers.marker.command="node"',
      'mcp_servers.marker.args=["mark-server.mjs"]',
      'mcp_servers.marker.cwd="/exec/agentRoot"',
      'mcp_servers.marker.env={ "MODE" = "test" }',
      'mcp_servers.marker.env_vars=["MARK_SECRET"]',
      'mcp_servers.search.url="https://mcp.example.com/mcp"',
      'mcp_servers.search.http_headers={ "X-Client" = "ribosome" }',
      'mcp_servers.search.env_http_headers={ "Authorization" = "RIBOSOME_MCP_SEARCH_HEADER_1" }',
      'shell_environment_policy.set.MARK_SECRET=""',
      'shell_environment_policy.set.RIBOSOME_MCP_SEARCH_HEADER_1=""',
    ]);
    expect(overrides.env).toEqual({ MARK_SECRET: 's3cret', RIBOSOME_MCP_SEARCH_HEADER_1: 'Bearer t0ken' });
  });

  it('user: two servers wanting one variable with different values are refused, saying what to do', () => {
    const other: McpLaunch = { ...stdio, name: 'other', secretEnv: { MARK_SECRET: 'different' } };
    const overrides = codexMcpOverrides([stdio, other]);
    expect(overrides).toEqual({ ok: false, message: expect.stringContaining('MARK_SECRET') });
  });
});

describe('Gemini CLI: mcpServers of its settings', () => {
  it('stdio with env and cwd, remote as type http; each trusted', () => {
    expect(geminiMcpServers([stdio, remote])).toEqual({
      marker: {
        command: 'node',
        args: ['mark-server.mjs'],
        env: { MODE: 'test', MARK_SECRET: 's3cret' },
        cwd: ROOT,
        trust: true,
      },
      search: {
        type: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { 'X-Client': 'ribosome', Authorization: 'Bearer t0ken' },
        trust: true,
      },
    });
  });
});

describe("Gemini CLI in the user's own configuration", () => {
  it('refuses a codon with MCP servers before starting anything, saying why', async () => {
    const run = new GeminiAdapter({ config: 'user' }).start({
      prompt: 'p',
      model: 'gemini-2.5-pro',
      cwd: ROOT,
      env: {},
      providerBaseUrl: 'http://127.0.0.1:9',
      stateDir: '/nonexistent/state',
      mark: 'm',
      mcpServers: [stdio],
    });
    expect(run.pid).toBe(-1);
    await run.exited;
    expect(run.startFailure).toBe(USER_CONFIG_MCP);
  });
});

describe('opencode: mcp of its config', () => {
  it('local with its command as an array, remote without an OAuth login', () => {
    expect(opencodeMcp([stdio, remote])).toEqual({
      marker: {
        type: 'local',
        command: ['/usr/bin/env', ...UNSET, '--', 'node', 'mark-server.mjs'],
        environment: { MODE: 'test', MARK_SECRET: 's3cret' },
        cwd: ROOT,
      },
      search: {
        type: 'remote',
        url: 'https://mcp.example.com/mcp',
        headers: { 'X-Client': 'ribosome', Authorization: 'Bearer t0ken' },
        oauth: false,
      },
    });
  });
});
