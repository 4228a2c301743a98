/**
 * The name every agent's translator gives an MCP tool in the engine's stream-json, `mcp__<server>__<tool>`
 * (src/engine/stream-mapper.ts reads server and tool from it), from the name the CLI gave it: Gemini
 * CLI's `mcp_<server>_<tool>`, opencode's `<server>_<tool>`. A server's name may hold `_`, so the name
 * is split at the codon's own server names: the longest that fits. Pure.
 */

/** How a CLI names server S's tool T: `prefix` + S + `_` + T. */
export type McpNaming = { prefix: string };

export const GEMINI_NAMING: McpNaming = { prefix: 'mcp_' };
export const OPENCODE_NAMING: McpNaming = { prefix: '' };

/**
 * `name` as `mcp__<server>__<tool>` when it is one of `servers`' tools under `naming`, else undefined
 * (a tool of the CLI's own, or a name that fits no server of the codon).
 */
export function fromCliName(name: string, servers: readonly string[], naming: McpNaming): string | undefined {
  if (!name.startsWith(naming.prefix)) return undefined;
  const rest = name.slice(naming.prefix.length);
  const server = servers
    .filter((s) => rest.startsWith(`${s}_`) && rest.length > s.length + 1)
    .sort((a, b) => b.length - a.length)[0];
  return server === undefined ? undefined : `mcp__${server}__${rest.slice(server.length + 1)}`;
}

/** `name` renamed when it is an MCP tool of `servers` (fromCliName), else as it is. */
export function engineToolName(name: string, servers: readonly string[], naming: McpNaming): string {
  return servers.length === 0 ? name : (fromCliName(name, servers, naming) ?? name);
}

/**
 * The name an agent gives an MCP server's tool: `mcp__<server>__<tool>`, as Claude Code names it
 * (every agent's stream-json uses it, so events carry mcpServer and mcpTool). A server's name never
 * holds `__` (src/plan/mcp-schema.ts), so the first `__` after the prefix ends it. Characters a model
 * API refuses in a tool's name become `_`. Pure.
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
