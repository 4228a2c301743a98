/** `ribosome mcp`: Ribosome as an MCP server (docs/mcp.md), a client of each execution's control server. */
export type { McpContext } from './context.ts';
export { startMcpHttp } from './http-server.ts';
export { createMcpServer } from './mcp-server.ts';
export { offeredTools, READING_TOOLS, WRITING_TOOLS } from './tool-names.ts';
