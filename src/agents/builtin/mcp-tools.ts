/**
 * The built-in agent's MCP servers (docs/mcp.md): each connected at the start of the run, its tools
 * offered to the model beside the built-in ones as `mcp__<server>__<tool>`, each call sent to its
 * server and bounded by the tool timeout, every server closed when the run ends. A server that cannot
 * start or answer fails the run at its start, naming it: a codon given a tool it cannot have would
 * otherwise go on without it, and the user would learn why only from what the agent did instead.
 */
import type { ToolDefinition } from '../../llm/schemas.ts';
import { connectMcp, type McpConnection } from '../mcp/mcp-connection.ts';
import type { McpLaunch } from '../mcp/mcp-launch.ts';
import { mcpToolName } from '../mcp/tool-names.ts';
import type { ToolOutcome } from './tools/tool.ts';

/** A server as the init line lists it (Claude Code's `mcp_servers` entries). */
export type McpServerStatus = { name: string; status: 'connected' | 'failed' };

export type McpToolbox = {
  /** Offered to the model after the built-in tools, in the servers' order. */
  definitions: ToolDefinition[];
  servers: McpServerStatus[];
  /** Runs the MCP tool of that full name; undefined when the name is no MCP tool's. */
  run(name: string, input: unknown, signal: AbortSignal): Promise<ToolOutcome> | undefined;
  close(): Promise<void>;
};

export type McpToolboxOptions = {
  /** The agent's environment: a stdio server's starts from it. */
  env: NodeJS.ProcessEnv;
  /** How long a server may take to start and list its tools (MCP_TIMEOUT). */
  connectTimeoutMs: number;
  /** How long one tool call may take (MCP_TOOL_TIMEOUT). */
  toolTimeoutMs: number;
  signal: AbortSignal;
};

export type OpenedToolbox =
  | { ok: true; toolbox: McpToolbox }
  | { ok: false; message: string; servers: McpServerStatus[] };

/** Connects every server at once; one failing closes the others and fails it all. */
export async function openMcpToolbox(
  launches: readonly McpLaunch[],
  options: McpToolboxOptions,
): Promise<OpenedToolbox> {
  const connected = await Promise.all(
    launches.map((launch) =>
      connectMcp(launch, {
        baseEnv: options.env,
        timeoutMs: options.connectTimeoutMs,
        signal: options.signal,
        clientName: 'ribosome-agent',
      }),
    ),
  );
  const connections = connected.flatMap((c) => (c.ok ? [c.connection] : []));
  const servers = launches.map(
    (launch, i): McpServerStatus => ({
      name: launch.name,
      status: connected[i]?.ok ? 'connected' : 'failed',
    }),
  );
  const failures = connected.flatMap((c) => (c.ok ? [] : [c.message]));
  if (failures.length > 0) {
    await Promise.all(connections.map((c) => c.close()));
    return { ok: false, message: failures.join('\n'), servers };
  }
  return { ok: true, toolbox: toolboxOf(connections, servers, options.toolTimeoutMs) };
}

/** Each tool of `connections` by its full name; a second tool whose name reads the same is left out. */
export function toolboxOf(
  connections: readonly McpConnection[],
  servers: McpServerStatus[],
  toolTimeoutMs: number,
): McpToolbox {
  const byName = new Map<string, { connection: McpConnection; tool: string }>();
  const definitions: ToolDefinition[] = [];
  for (const connection of connections) {
    for (const tool of connection.tools) {
      const name = mcpToolName(connection.name, tool.name);
      if (byName.has(name)) continue;
      byName.set(name, { connection, tool: tool.name });
      const { $schema: _, ...schema } = tool.inputSchema;
      definitions.push({
        name,
        ...(tool.description ? { description: tool.description } : {}),
        input_schema: schema,
      });
    }
  }
  return {
    definitions,
    servers,
    run(name, input, signal) {
      const found = byName.get(name);
      if (!found) return undefined;
      return found.connection
        .call(found.tool, input, { timeoutMs: toolTimeoutMs, signal })
        .then(({ text, isError }) => ({ content: text, isError }));
    },
    close: () => Promise.all(connections.map((c) => c.close())).then(() => {}),
  };
}
