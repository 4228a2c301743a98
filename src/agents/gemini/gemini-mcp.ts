import type { McpLaunch } from '../mcp/mcp-launch.ts';

/**
 * The `mcpServers` of Gemini CLI's settings (0.61) for the codon's servers, secrets written in: a stdio
 * server `{ command, args, env, cwd }`, a remote one `{ type: "http", url, headers }`; each `trust`ed,
 * so its calls are never held for a confirmation nobody gives (`--yolo` approves them too). Gemini CLI
 * names their tools `mcp_<server>_<tool>`. Only in a home of its own (agentConfig: isolated): the
 * user's settings are never written, and the one other settings file Gemini CLI reads from elsewhere
 * (GEMINI_CLI_SYSTEM_SETTINGS_PATH) is refused when any directory above it is writable by others, as
 * /tmp is. Pure.
 */
export function geminiMcpServers(servers: readonly McpLaunch[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    servers.map((server) => [
      server.name,
      server.kind === 'stdio'
        ? {
            command: server.command,
            args: server.args,
            env: { ...server.env, ...server.secretEnv },
            cwd: server.cwd,
            trust: true,
          }
        : {
            type: 'http',
            url: server.url,
            headers: { ...server.headers, ...server.secretHeaders },
            trust: true,
          },
    ]),
  );
}

/** Why a Gemini CLI run in the user's own configuration cannot have MCP servers. */
export const USER_CONFIG_MCP =
  "Gemini CLI takes a codon's mcpServers only in a configuration of its own (agentConfig: isolated), where they are written into its settings: the user's ~/.gemini/settings.json is never written";
