import { isAbsolute } from 'node:path';
import { agentBaseEnv } from '../../agents/agent-env.ts';
import { connectMcp } from '../../agents/mcp/mcp-connection.ts';
import { mcpLaunches } from '../../agents/mcp/mcp-launch.ts';
import type { RuntimeCodon } from '../../plan/loaded-plan.ts';
import type { McpServer } from '../../plan/mcp-schema.ts';
import type { CheckResult } from './check-result.ts';

/**
 * `ribosome doctor --plan FILE`: every MCP server a codon of the plan gets (docs/mcp.md), started once
 * (stdio) or reached (remote) as an agent would, its tools listed; each failure said with what to do.
 */

/** One distinct server of a plan: a name and entry, with the codons that get it. */
export type PlanMcpServer = { name: string; server: McpServer; codons: string[] };

/** The servers of the plan's codons, each name and entry once, in the order codons first get them. Pure. */
export function planMcpServers(plan: {
  codons: ReadonlyArray<Pick<RuntimeCodon, 'id' | 'mcpServers'>>;
}): PlanMcpServer[] {
  const found = new Map<string, PlanMcpServer>();
  for (const codon of plan.codons) {
    for (const [name, server] of Object.entries(codon.mcpServers)) {
      const key = `${name}\0${JSON.stringify(server)}`;
      const seen = found.get(key);
      if (seen) {
        if (!seen.codons.includes(codon.id)) seen.codons.push(codon.id);
      } else found.set(key, { name, server, codons: [codon.id] });
    }
  }
  return [...found.values()];
}

export type McpCheckOptions = {
  env: NodeJS.ProcessEnv;
  /** What a relative `cwd` is resolved against: the plan's directory (the run's agent root is not there yet). */
  baseDir: string;
  /** How long each server may take to start and list its tools. */
  timeoutMs: number;
};

/** How long a tool's description may be in a line. */
const DESCRIPTION_CHARS = 80;

/** One check row per distinct server: its tools, or why it cannot be used. */
export function checkMcpServers(
  servers: readonly PlanMcpServer[],
  options: McpCheckOptions,
): Promise<CheckResult[]> {
  const named = (s: PlanMcpServer) => servers.filter((other) => other.name === s.name).length > 1;
  return Promise.all(
    servers.map((entry) => {
      // One name given different entries by different codons: each said with its codons.
      const check = `mcp ${entry.name}${named(entry) ? ` (codons ${entry.codons.join(', ')})` : ''}`;
      return checkOne(check, entry, options);
    }),
  );
}

async function checkOne(check: string, entry: PlanMcpServer, options: McpCheckOptions): Promise<CheckResult> {
  const launches = mcpLaunches({ [entry.name]: entry.server }, options.baseDir, options.env);
  if (!launches.ok) {
    return {
      check,
      status: 'fail',
      detail: launches.message,
      fix: 'Set the variable in the environment `ribosome run` starts in; the plan names it, never its value.',
    };
  }
  const launch = launches.servers[0]!;
  const connected = await connectMcp(launch, {
    baseEnv: agentBaseEnv(options.env),
    timeoutMs: options.timeoutMs,
    clientName: 'ribosome-doctor',
  });
  const what =
    launch.kind === 'stdio'
      ? `stdio ${[launch.command, ...launch.args].join(' ')}${'command' in entry.server && entry.server.cwd && !isAbsolute(entry.server.cwd) ? ` (cwd ${entry.server.cwd} taken from the plan's directory)` : ''}`
      : launch.url;
  if (!connected.ok) {
    return {
      check,
      status: 'fail',
      detail:
        launch.kind === 'stdio'
          ? connected.message.replace(`MCP server "${entry.name}" `, `${what}: `)
          : connected.message.replace(`MCP server "${entry.name}" `, ''),
      fix:
        launch.kind === 'stdio'
          ? 'Run the command by hand in that directory to see why; fix the entry in the plan (command, args, cwd, env).'
          : 'Check the URL, that the server is up, and its headers or token.',
    };
  }
  const { tools } = connected.connection;
  await connected.connection.close();
  const list = tools.map((tool) => {
    const line = tool.description?.split('\n')[0]?.trim() ?? '';
    const short = line.length > DESCRIPTION_CHARS ? `${line.slice(0, DESCRIPTION_CHARS - 1)}…` : line;
    return short === '' ? tool.name : `${tool.name} (${short})`;
  });
  return {
    check,
    status: tools.length > 0 ? 'ok' : 'warn',
    detail: `${what}: ${tools.length} tool${tools.length === 1 ? '' : 's'}${list.length > 0 ? `: ${list.join('; ')}` : ''}`,
    ...(tools.length > 0 ? {} : { fix: 'The server offers no tools: an agent gets nothing from it.' }),
  };
}
