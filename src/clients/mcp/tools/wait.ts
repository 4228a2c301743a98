import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpContext } from '../context.ts';
import { recentLines } from '../event-lines.ts';
import { alreadyThere, collect, endedBy, type FollowEnd } from '../follow.ts';
import { reportNews } from '../news.ts';
import { readStatus } from '../read-run.ts';
import { registerTool } from '../register.ts';
import { statusText } from '../status.ts';
import { findTarget, withClient } from '../target.ts';
import { answer } from '../tool-result.ts';
import { executionArg } from './reading.ts';

/** What each end of a wait says first. */
const ENDS: Record<FollowEnd, string> = {
  idle: 'the server is idle now',
  'codon-ended': 'the codon ended',
  'usage-limit':
    'the run waits for a usage limit to reset: nothing moves until then (codon.next starts the codon now)',
  already: 'nothing to wait for: it was so already',
  timeout: 'still going when the wait timed out: call wait again to follow it further',
  'server-stopped': 'the server stopped',
};

/** Seconds a wait lasts by default: under the 60 s an MCP client commonly allows a call. */
export const DEFAULT_WAIT_SECONDS = 50;

export const timeoutArg = z
  .number()
  .min(1)
  .max(3_600)
  .default(DEFAULT_WAIT_SECONDS)
  .describe(
    `Longest wait in seconds (default ${DEFAULT_WAIT_SECONDS}); the answer then says it is still going`,
  );

/** wait: follows a live run until the server idles or a codon ends, reporting each codon's start and end. */
export function registerWaitTool(server: McpServer, context: McpContext): void {
  registerTool(server, context, {
    name: 'wait',
    title: 'Wait for the run',
    description:
      "Follow a running execution until its server is idle (the plan has run, a codon failed or stopped, or nothing starts by itself) or, with until: codon_end, until a codon ends (the one named, else the running one); a wait for an agent's usage limit to reset ends it too (end usage-limit: the status says until when). Reports each codon's start and end as progress, and answers with what happened (as `ribosome log` prints it) and the run's status. Returns at once when it is so already, or when no server runs.",
    input: {
      execution: executionArg,
      until: z
        .enum(['idle', 'codon_end'])
        .default('idle')
        .describe('idle (default): until the server idles; codon_end: until a codon ends'),
      codon: z.string().min(1).optional().describe('With codon_end: the codon id to wait for'),
      timeoutSeconds: timeoutArg,
    },
    run: async ({ execution, until, codon, timeoutSeconds }, progress) => {
      const target = await findTarget(execution, context);
      if (target.url === undefined) {
        const status = readStatus(target);
        return answer(`no server is running: nothing more will happen\n${statusText(status)}`, {
          end: 'server-stopped',
          status,
        });
      }
      return withClient(target.url, 'readonly', context, async (client) => {
        const follow = collect(client, reportNews(target, progress));
        try {
          const before = readStatus(target);
          const end = alreadyThere(until, codon, before)
            ? 'already'
            : await follow.until((e) => endedBy(until, codon, e), timeoutSeconds * 1_000);
          const status = readStatus(end === 'server-stopped' ? { ...target, url: undefined } : target);
          const lines = recentLines(follow.events, context.consoleView(), 60);
          const text = [ENDS[end], ...lines, '', statusText(status)].join('\n');
          return answer(text, { end, lines, status });
        } finally {
          follow.close();
        }
      });
    },
  });
}
