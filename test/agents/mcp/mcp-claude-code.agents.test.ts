/** Claude Code's MCP servers (`--mcp-config --strict-mcp-config`), its own configuration and the user's: mcp-matrix.ts. */
import { claudeBinary } from '../../../src/agents/claude-code/claude-binary.ts';
import { describeMcpAgent } from './mcp-matrix.ts';

describeMcpAgent({
  agent: 'claude-code',
  model: 'claude-sonnet-4-5',
  binary: claudeBinary(),
  shell: (command) => ({ name: 'Bash', input: { command } }),
  userConfig: 'claudeConfig: user',
  // Headless, Claude Code starts its first turn after 5 s unless told to wait (MCP_CONNECT_TIMEOUT_MS).
  markerStartAfterMs: 6000,
});
