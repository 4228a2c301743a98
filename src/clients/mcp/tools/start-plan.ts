import { resolve } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { parseServerEvent, type ServerEvent } from '../../../core/protocol/index.ts';
import { formatProblems, loadPlan } from '../../../plan/index.ts';
import { Agent } from '../../../plan/primitives.ts';
import { liveServerUrl, readRuns } from '../../runs/index.ts';
import type { McpContext } from '../context.ts';
import { collect } from '../follow.ts';
import { reportNews } from '../news.ts';
import { registerTool } from '../register.ts';
import { startRun } from '../run-start.ts';
import { defaultExecution, type StartRequest } from '../start-args.ts';
import { withClient } from '../target.ts';
import { answer, ToolError } from '../tool-result.ts';

/** How long start_plan waits, once the server listens, for its first codon to start (or the server to idle). */
const FIRST_CODON_TIMEOUT_MS = 30_000;

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** start_plan: a `ribosome run` in the background, answered once its server listens and its run began. */
export function registerStartTool(server: McpServer, context: McpContext): void {
  registerTool(server, context, {
    name: 'start_plan',
    title: 'Start a plan',
    description:
      "Run a plan file in the background (a headless `ribosome run`): the plan is validated first (its problems are the answer, nothing starts), then its server starts in an execution directory (given, else ./ribosome-runs/<plan name>, which resumes when it has runs). Answers with the execution directory and the server's address once its first codon started; the server keeps serving after the plan has run (for rollback and redo) until stop_server. Follow it with wait, status and recent_events.",
    input: {
      plan: z
        .string()
        .min(1)
        .describe('The plan file (YAML or JSON), relative to the directory ribosome mcp runs in'),
      execution: z
        .string()
        .min(1)
        .optional()
        .describe('The execution directory (default ./ribosome-runs/<plan name>)'),
      fresh: z.boolean().default(false).describe('Start anew instead of resuming an execution that has runs'),
      workspace: z
        .string()
        .min(1)
        .optional()
        .describe('A git repository (path[@ref]) a fresh agent root starts as a clone of'),
      scriptedProvider: z
        .string()
        .min(1)
        .optional()
        .describe('Run offline on the built-in scripted provider with this script'),
      agent: Agent.optional().describe('The agent of every codon without its own'),
      model: z.string().min(1).optional().describe('The model of every codon without its own'),
      vars: z.record(z.string(), z.string()).optional().describe('Environment variables of every codon'),
      maxCostUsd: z.number().positive().optional().describe("The run's budget in US dollars"),
      autostart: z.boolean().default(true).describe('Start each next codon by itself (default true)'),
      exitWhenDone: z
        .boolean()
        .default(false)
        .describe('Stop the server once the plan has run or a codon failed'),
    },
    run: async (args, progress) => {
      const bad = Object.keys(args.vars ?? {}).find((name) => !VAR_NAME.test(name));
      if (bad !== undefined)
        throw new ToolError(`vars: "${bad}" is not a variable name (letters, digits, _)`);
      const planFile = resolve(context.cwd, args.plan);
      const loaded = await loadPlan(planFile, {
        ...(args.agent ? { agent: args.agent } : {}),
        ...(args.model ? { model: args.model } : {}),
        ...(args.vars ? { env: args.vars } : {}),
      });
      if (!loaded.ok)
        throw new ToolError(
          `the plan is not valid; nothing was started:\n${formatProblems(loaded.problems, planFile, context.cwd)}`,
        );
      const plan = loaded.plan;
      const chosen =
        args.execution !== undefined
          ? { dir: resolve(context.cwd, args.execution), fresh: args.fresh }
          : defaultExecution(context.cwd, plan.name, {
              fresh: args.fresh,
              hasRuns: hasRuns(resolve(context.cwd, 'ribosome-runs', plan.name)),
              now: new Date(),
            });
      const running = liveServerUrl(chosen.dir);
      if (running)
        throw new ToolError(
          `a Ribosome server already runs on ${chosen.dir} at ${running}: follow it with wait or status, or stop it with stop_server first`,
        );
      const request: StartRequest = {
        plan: planFile,
        execution: chosen.dir,
        fresh: chosen.fresh,
        workspace: args.workspace,
        scriptedProvider: args.scriptedProvider ? resolve(context.cwd, args.scriptedProvider) : undefined,
        agent: args.agent,
        model: args.model,
        vars: args.vars,
        maxCostUsd: args.maxCostUsd,
        autostart: args.autostart,
        exitWhenDone: args.exitWhenDone,
      };
      progress(`starting ribosome run ${plan.name} in ${chosen.dir}`);
      const started = await startRun(request, context);
      progress(`server listening at ${started.url}`);
      const target = { dir: chosen.dir, url: started.url };
      const first = await withClient(
        started.url,
        'readonly',
        context,
        async (client) => {
          const follow = collect(client, reportNews(target, progress));
          try {
            const history = client.handshake.eventHistory.flatMap((raw) => {
              const parsed = parseServerEvent(raw);
              return parsed.ok ? [parsed.event] : [];
            });
            const began = history.findLast(isBeginning);
            if (began) return began;
            const end = await follow.until(
              (e) => (isBeginning(e) ? 'already' : undefined),
              FIRST_CODON_TIMEOUT_MS,
            );
            return end === 'already' ? follow.events.find(isBeginning) : undefined;
          } finally {
            follow.close();
          }
        },
        { sendPreviousEvents: true },
      );
      // The run is on its own now: this MCP server may end before it.
      started.process.release();
      const now =
        first?.type === 'codon.started'
          ? `codon ${first.data.codonId} is running`
          : first?.type === 'server.idle'
            ? `the server is idle: ${first.data.message}`
            : 'no codon has started yet';
      // Warnings a person would want before the run goes on: an MCP secret unset in this MCP server's
      // environment (an MCP client starts its servers with few variables) fails its codon at its start.
      const warnings =
        loaded.warnings.length > 0
          ? [`the plan's warnings:\n${formatProblems(loaded.warnings, planFile, context.cwd)}`]
          : [];
      const text = [
        `started plan ${plan.name} (${plan.codons.length} codons) in ${chosen.dir}`,
        `server: ${started.url} (pid ${started.pid}; its output: ${started.log})`,
        now,
        `follow it with wait {"execution": ${JSON.stringify(chosen.dir)}}`,
        ...warnings,
      ].join('\n');
      return answer(text, {
        execution: chosen.dir,
        url: started.url,
        pid: started.pid,
        log: started.log,
        plan: plan.name,
        codons: plan.codons.map((c) => c.id),
        ...(first?.type === 'codon.started' ? { running: first.data.codonId } : {}),
      });
    },
  });
}

/** The first news of a run: a codon started, or the server idles (autostart off, or nothing left to run). */
const isBeginning = (e: ServerEvent) => e.type === 'codon.started' || e.type === 'server.idle';

/** Whether the directory already holds runs (a start there resumes them). */
function hasRuns(dir: string): boolean {
  try {
    return readRuns(dir).length > 0;
  } catch {
    return false;
  }
}
