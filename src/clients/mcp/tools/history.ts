import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { RollbackCheckpointType } from '../../../core/protocol/index.ts';
import type { McpContext } from '../context.ts';
import { recentLines } from '../event-lines.ts';
import { collect, endedBy } from '../follow.ts';
import { reportNews } from '../news.ts';
import { readStatus } from '../read-run.ts';
import { registerTool } from '../register.ts';
import { statusText } from '../status.ts';
import { findTarget, liveUrl, withClient } from '../target.ts';
import { answer, ToolError } from '../tool-result.ts';
import { executionArg } from './reading.ts';
import { timeoutArg } from './wait.ts';

/** How long a rollback may take to be done: it waits for a running codon to stop, then restores files. */
const ROLLBACK_TIMEOUT_MS = 120_000;

/** Going back and again: rollback (to a codon or a checkpoint) and redo_codon. */
export function registerHistoryTools(server: McpServer, context: McpContext): void {
  registerTool(server, context, {
    name: 'rollback',
    title: 'Roll back',
    description:
      "Roll the execution back to a codon's checkpoint (rollback.toCodon; checkpointType start, the default, undoes that codon and every later one; end keeps it) or to a checkpoint SHA (rollback.toCheckpoint). The files of the agent root are restored and a new run begins there; with autoRestart the next codon starts, else the server idles (then redo_codon runs the codon again). Answers once the rollback is done.",
    input: {
      execution: executionArg,
      codon: z.string().min(1).optional().describe('The codon id to go back to (or give checkpoint)'),
      checkpointType: RollbackCheckpointType.default('start').describe(
        "Which of the codon's checkpoints: start (default: before it ran), end (after it), or rig-setup, completed, error, skipped",
      ),
      checkpoint: z.string().optional().describe('A checkpoint SHA (4-64 hex digits) instead of a codon'),
      autoRestart: z.boolean().default(false).describe('Start the next codon right after (default false)'),
    },
    run: async ({ execution, codon, checkpointType, checkpoint, autoRestart }, progress) => {
      if ((codon === undefined) === (checkpoint === undefined))
        throw new ToolError('give either codon (a codon id) or checkpoint (a SHA), one of them');
      const target = await findTarget(execution, context);
      const url = liveUrl(target);
      return withClient(url, 'readandwrite', context, async (client) => {
        const follow = collect(client, reportNews(target, progress));
        try {
          const done =
            codon !== undefined
              ? await client.request(
                  'rollback.toCodon',
                  { codonId: codon, checkpointType, autoRestart },
                  'rollback.completed',
                  { timeoutMs: ROLLBACK_TIMEOUT_MS },
                )
              : await client.request(
                  'rollback.toCheckpoint',
                  { checkpointSha: checkpoint ?? '', autoRestart },
                  'rollback.completed',
                  { timeoutMs: ROLLBACK_TIMEOUT_MS },
                );
          const started = follow.events.find((e) => e.type === 'rollback.started');
          const undone = started?.type === 'rollback.started' ? started.data.codonsToProcess : [];
          const d = done.data;
          const status = readStatus(target);
          const text = [
            `rolled back to ${d.codonId} (${d.checkpointType}, checkpoint ${d.checkpoint.slice(0, 12)}): new run ${d.toRun}`,
            ...(undone.length > 0 ? [`undone: ${undone.join(', ')}`] : []),
            '',
            statusText(status),
          ].join('\n');
          return answer(text, {
            codonId: d.codonId,
            checkpointType: d.checkpointType,
            checkpoint: d.checkpoint,
            fromRun: d.fromRun,
            toRun: d.toRun,
            undone,
            status,
          });
        } finally {
          follow.close();
        }
      });
    },
  });

  registerTool(server, context, {
    name: 'redo_codon',
    title: 'Redo a codon',
    description:
      "Run a codon again (codon.redo): right after a rollback to a codon's start, that codon; else the codon that ended last. By default waits until it ends (or timeoutSeconds pass), reporting its start and end as progress, and answers with what happened; wait: false answers once it started.",
    input: {
      execution: executionArg,
      wait: z.boolean().default(true).describe('Wait for the codon to end (default true)'),
      timeoutSeconds: timeoutArg,
    },
    run: async ({ execution, wait, timeoutSeconds }, progress) => {
      const target = await findTarget(execution, context);
      const url = liveUrl(target);
      return withClient(url, 'readandwrite', context, async (client) => {
        const follow = collect(client, reportNews(target, progress));
        try {
          const started = await client.request('codon.redo', undefined, 'codon.started', {
            timeoutMs: 60_000,
          });
          const codonId = started.data.codonId;
          const end = wait
            ? await follow.until((e) => endedBy('codon_end', codonId, e), timeoutSeconds * 1_000)
            : undefined;
          const status = readStatus(target);
          const lines = recentLines(follow.events, context.consoleView(), 60);
          const head =
            end === undefined
              ? `codon ${codonId} started again: follow it with wait`
              : end === 'timeout'
                ? `codon ${codonId} is still running after ${timeoutSeconds}s: follow it with wait`
                : `codon ${codonId} was run again`;
          return answer([head, ...lines, '', statusText(status)].join('\n'), {
            codonId,
            end: end ?? 'started',
            lines,
            status,
          });
        } finally {
          follow.close();
        }
      });
    },
  });
}
