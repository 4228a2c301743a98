/** opencode's MCP servers (`mcp` in its config): mcp-matrix.ts. */
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { OPENCODE } from '../../../src/agents/opencode/opencode-cli.ts';
import { describeMcpAgent } from './mcp-matrix.ts';

describeMcpAgent({
  agent: 'opencode',
  model: 'claude-sonnet-4-5',
  binary: cliBinary(OPENCODE),
  shell: (command) => ({ name: 'bash', input: { command, description: 'Print the environment' } }),
  userConfig: 'agentConfig: user',
});
