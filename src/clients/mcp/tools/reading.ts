import { resolve } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { displayLine, displayText } from '../../model/display-text.ts';
import { formatCodons, formatCost, formatRuns, readRuns } from '../../runs/index.ts';
import type { McpContext } from '../context.ts';
import { recentLines } from '../event-lines.ts';
import { listExecutions, readLatestEvents, readStatus } from '../read-run.ts';
import { registerTool } from '../register.ts';
import { statusText } from '../status.ts';
import { findTarget } from '../target.ts';
import { answer } from '../tool-result.ts';

/** The `execution` argument every tool that addresses a run takes. */
export const executionArg = z
  .string()
  .optional()
  .describe(
    'The execution: its directory (as start_plan or list_executions gave it) or its server address ws://HOST:PORT; left out: the only execution under ./ribosome-runs',
  );

/** Reading an execution: list_executions, list_runs, status, recent_events (from its files, server or not). */
export function registerReadingTools(server: McpServer, context: McpContext): void {
  registerTool(server, context, {
    name: 'list_executions',
    title: 'List executions',
    description:
      'List the Ribosome executions (one directory per plan run) under a directory, default ./ribosome-runs: each with its plan, whether its server is running (and its address), and its latest run (status, codons done, cost).',
    input: {
      directory: z.string().optional().describe('Where to look (default ./ribosome-runs)'),
    },
    run: async ({ directory }) => {
      const parent = resolve(context.cwd, directory ?? 'ribosome-runs');
      const executions = listExecutions(parent);
      const lines = executions.map((e) => {
        const latest = e.latest
          ? `${e.latest.status}, ${formatCodons(e.latest.done, e.latest.total)} codons, ${formatCost(e.latest.cost)}`
          : 'no runs';
        return displayLine(
          `${e.dir}  plan ${e.plan ?? '?'}  ${latest}  ${e.server ? `server ${e.server}` : 'no server'}`,
        );
      });
      const text = executions.length === 0 ? `no execution under ${parent}` : lines.join('\n');
      return answer(text, { directory: parent, executions });
    },
  });

  registerTool(server, context, {
    name: 'list_runs',
    title: 'List runs',
    description:
      "List an execution's runs (each server start, rollback or recovery begins one): status, codons done, cost, start, duration, checkpoint branch.",
    input: { execution: executionArg },
    run: async ({ execution }) => {
      const target = await findTarget(execution, context);
      const runs = readRuns(target.dir);
      return answer(displayText(formatRuns(runs)), { execution: target.dir, runs });
    },
  });

  registerTool(server, context, {
    name: 'status',
    title: 'Run status',
    description:
      "Where an execution's run stands: each codon's status (pending, running, completed, failed, skipped, stopped), the codon running now, codons done of the plan's, what runs next, whether the server is idle and why, and the cost.",
    input: { execution: executionArg },
    run: async ({ execution }) => {
      const status = readStatus(await findTarget(execution, context));
      return answer(statusText(status), status);
    },
  });

  registerTool(server, context, {
    name: 'recent_events',
    title: 'Recent events',
    description:
      "The execution's latest events as `ribosome log` prints them, one line each: codons started and ended, the agent's messages and tool calls, files changed, sentinels, rollbacks, errors.",
    input: {
      execution: executionArg,
      count: z.number().int().min(1).max(500).default(40).describe('How many lines, the newest (default 40)'),
    },
    run: async ({ execution, count }) => {
      const target = await findTarget(execution, context);
      // More events than lines: many events print nothing, and a line may need what came before it.
      const events = readLatestEvents(target.dir, Math.min(5_000, count * 10));
      const lines = recentLines(events, context.consoleView(), count);
      return answer(lines.length === 0 ? 'no events yet' : lines.join('\n'), {
        execution: target.dir,
        lines,
      });
    },
  });
}
