import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpContext } from '../context.ts';
import { registerTool } from '../register.ts';
import { findTarget, liveUrl, withClient } from '../target.ts';
import { answer, ToolError } from '../tool-result.ts';
import { executionArg } from './reading.ts';

/** How long a stop may take: the agent's grace (SIGTERM, then SIGKILL) and the codon's end checkpoint. */
const STOP_TIMEOUT_MS = 30_000;

/** Steering the running codon and the server: send_message, skip_codon, force_stop, approve, stop_server. */
export function registerSteeringTools(server: McpServer, context: McpContext): void {
  registerTool(server, context, {
    name: 'send_message',
    title: 'Message the agent',
    description:
      "Send a message to the running codon's agent (codon.message): it joins the agent's conversation (live, or as a follow-up turn for agents without live input). Refused when no codon is running.",
    input: { execution: executionArg, text: z.string().min(1).describe('What to tell the agent') },
    run: async ({ execution, text }) => {
      const url = liveUrl(await findTarget(execution, context));
      return withClient(url, 'readandwrite', context, async (client) => {
        const sent = await client.sendMessage(text);
        const { codonId, delivery } = sent.data;
        return answer(`message sent to codon ${codonId} (delivery: ${delivery})`, { codonId, delivery });
      });
    },
  });

  for (const [name, type, verb] of [
    ['skip_codon', 'codon.skip', 'skipped'],
    ['force_stop', 'codon.forceStop', 'stopped'],
  ] as const) {
    registerTool(server, context, {
      name,
      title: name === 'skip_codon' ? 'Skip the codon' : 'Stop the codon',
      description:
        name === 'skip_codon'
          ? 'Skip the running codon (codon.skip): its agent is stopped, the codon counts as done (skipped) and the next one starts.'
          : 'Force-stop the running codon (codon.forceStop): its agent and every process it started are ended; the codon ends stopped and the server idles.',
      input: {
        execution: executionArg,
        ...(name === 'force_stop' ? { reason: z.string().optional().describe('Why (journaled)') } : {}),
      },
      run: async (args) => {
        const url = liveUrl(await findTarget(args.execution, context));
        const reason = 'reason' in args && typeof args.reason === 'string' ? args.reason : undefined;
        return withClient(url, 'readandwrite', context, async (client) => {
          const data = type === 'codon.forceStop' && reason ? { reason } : undefined;
          const ended = await client.request(type, data, 'codon.completed', { timeoutMs: STOP_TIMEOUT_MS });
          return answer(`codon ${ended.data.codonId} ${verb}`, { codonId: ended.data.codonId, status: verb });
        });
      },
    });
  }

  registerTool(server, context, {
    name: 'approve',
    title: 'Approve the codon',
    description:
      'Approve the codon the run waits on (approval: required, docs/review.md#approval-gates; the status names it): the run goes on as it would have. Refused when no codon waits, or another one does.',
    input: {
      execution: executionArg,
      codon: z.string().min(1).describe('The codon id that waits for approval'),
      note: z.string().optional().describe('A word journaled with the approval'),
    },
    run: async ({ execution, codon, note }) => {
      const url = liveUrl(await findTarget(execution, context));
      return withClient(url, 'readandwrite', context, async (client) => {
        const ended = await client.request(
          'approval.approve',
          { codonId: codon, ...(note ? { note } : {}) },
          'approval.ended',
        );
        return answer(ended.data.message, { codonId: ended.data.codonId, how: ended.data.how });
      });
    },
  });

  registerTool(server, context, {
    name: 'stop_server',
    title: 'Stop the server',
    description:
      "Shut the execution's server down (server.shutdown): a running codon is stopped, what is done is kept, and start_plan with the same execution resumes it later.",
    input: { execution: executionArg, reason: z.string().optional().describe('Why (journaled)') },
    run: async ({ execution, reason }) => {
      const target = await findTarget(execution, context);
      const url = liveUrl(target);
      return withClient(url, 'readandwrite', context, async (client) => {
        const closed = new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS);
          client.onStateChange((state) => {
            if (state !== 'closed') return;
            clearTimeout(timer);
            resolve(true);
          });
        });
        client.send('server.shutdown', reason ? { reason } : undefined);
        if (!(await closed))
          throw new ToolError(`the server at ${url} did not stop within ${STOP_TIMEOUT_MS / 1000}s`);
        return answer(`the server of ${target.dir} stopped`, { execution: target.dir, stopped: true });
      });
    },
  });
}
