/** Gemini CLI's MCP servers (`mcpServers` in its settings): mcp-matrix.ts. */
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { GEMINI_CLI } from '../../../src/agents/gemini/gemini-cli.ts';
import { describeMcpAgent } from './mcp-matrix.ts';

describeMcpAgent({
  agent: 'gemini',
  model: 'gemini-2.5-pro',
  binary: cliBinary(GEMINI_CLI),
  shell: (command) => ({ name: 'run_shell_command', input: { command } }),
});
