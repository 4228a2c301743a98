import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SERVER_VERSION } from '../../core/version.ts';
import type { McpContext } from './context.ts';
import { registerDiffTool } from './tools/codon-diff.ts';
import { registerExportTool } from './tools/export.ts';
import { registerHistoryTools } from './tools/history.ts';
import { registerReadingTools } from './tools/reading.ts';
import { registerReviewTools } from './tools/review.ts';
import { registerStartTool } from './tools/start-plan.ts';
import { registerSteeringTools } from './tools/steering.ts';
import { registerWaitTool } from './tools/wait.ts';

const INSTRUCTIONS = `Ribosome runs multi-step coding-agent plans ("codons"), checkpointing each step in git.
start_plan runs a plan file in the background and gives its execution directory; pass that as
"execution" to the other tools. wait follows the run (until it idles or a codon ends); status and
recent_events say where it stands; rollback goes back to a codon's start and redo_codon runs it again;
codon_diff shows what a codon changed; export hands the work back; stop_server ends the server.`;

/**
 * A `ribosome mcp` server: every tool a client of the execution's own control server (or of its files,
 * for reading), none a second engine path. One per connection: an MCP server takes one transport.
 */
export function createMcpServer(context: McpContext): McpServer {
  const server = new McpServer(
    { name: 'ribosome', version: SERVER_VERSION },
    {
      instructions: context.readonly
        ? `${INSTRUCTIONS}\nThis server is read-only: only list_executions, list_runs, status, recent_events, codon_diff and wait are offered.`
        : INSTRUCTIONS,
    },
  );
  registerReadingTools(server, context);
  registerWaitTool(server, context);
  registerDiffTool(server, context);
  registerStartTool(server, context);
  registerSteeringTools(server, context);
  registerHistoryTools(server, context);
  registerReviewTools(server, context);
  registerExportTool(server, context);
  return server;
}
