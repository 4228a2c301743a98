import { inDirectory } from '../mcp/in-directory.ts';
import type { McpLaunch } from '../mcp/mcp-launch.ts';
import { withoutAgentKeys } from '../mcp/without-keys.ts';

/**
 * The `--mcp-config` file Ribosome gives Claude Code (with `--strict-mcp-config`, so no server of the
 * user's own config or of a `.mcp.json` joins them): each server with its secrets written in, as
 * Claude Code passes a server's `env` and `headers` to it alone. Claude Code's config has no working
 * directory: a stdio server whose `cwd` is not the agent's is started there by a shell (inDirectory).
 * Pure.
 */
export function claudeMcpConfig(servers: readonly McpLaunch[], agentCwd: string): string {
  const entries = servers.map((server) => {
    if (server.kind === 'http')
      return [
        server.name,
        { type: 'http', url: server.url, headers: { ...server.headers, ...server.secretHeaders } },
      ];
    const env = { ...server.env, ...server.secretEnv };
    const line =
      server.cwd === agentCwd
        ? { command: server.command, args: server.args }
        : inDirectory(server.cwd, server.command, server.args);
    // Claude Code starts a server with its own environment, its LLM key included: not for a server.
    return [server.name, { type: 'stdio', ...withoutAgentKeys(line, env), env }];
  });
  return `${JSON.stringify({ mcpServers: Object.fromEntries(entries) }, null, 2)}\n`;
}
