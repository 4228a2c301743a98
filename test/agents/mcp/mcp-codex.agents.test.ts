/** Codex's MCP servers (`[mcp_servers]` in its config.toml; code mode, its default model): mcp-matrix.ts. */
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { describeMcpAgent } from './mcp-matrix.ts';

describeMcpAgent({
  agent: 'codex',
  model: 'gpt-6.2-sol',
  binary: cliBinary(CODEX),
  shell: (command) => ({ name: 'exec_command', input: { cmd: command } }),
  userConfig: 'agentConfig: user',
});
