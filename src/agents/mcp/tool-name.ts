/**
 * The name an agent gives an MCP server's tool: `mcp__<server>__<tool>`, as Claude Code names it
 * (every agent's stream-json uses it, so events carry mcpServer and mcpTool). A server's name never
 * holds `__` (src/plan/mcp-schema.ts), so the first `__` after the prefix ends it. Characters a model
 * API refuses in a tool's name become `_`. Pure.
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
