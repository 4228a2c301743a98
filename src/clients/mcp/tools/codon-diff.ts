import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { codonRange } from '../../model/checkpoint-range.ts';
import type { McpContext } from '../context.ts';
import { diffSummary, diffText } from '../diff-text.ts';
import { lineageCheckpoints } from '../lineage-checkpoints.ts';
import { readExecutionState } from '../read-run.ts';
import { registerTool } from '../register.ts';
import { findTarget, liveUrl, withClient } from '../target.ts';
import { answer, ToolError } from '../tool-result.ts';
import { executionArg } from './reading.ts';

/** codon_diff: checkpoint.list, then checkpoint.diff from a codon's start to its end. */
export function registerDiffTool(server: McpServer, context: McpContext): void {
  registerTool(server, context, {
    name: 'codon_diff',
    title: "A codon's diff",
    description:
      "The changes a codon made, as a unified diff: from its start checkpoint to its end checkpoint in the current run's lineage (the dashboard's default diff). Needs the execution's server running.",
    input: {
      execution: executionArg,
      codon: z.string().min(1).describe('The codon id'),
      path: z.string().min(1).optional().describe('Only this file, or the files under this directory'),
    },
    run: async ({ execution, codon, path }) => {
      const target = await findTarget(execution, context);
      const url = liveUrl(target);
      // The range from the execution's own record (every run of the lineage, and each run's initial
      // checkpoint, where a plan's first codon starts); the diff from its server.
      const checkpoints = lineageCheckpoints(readExecutionState(target.dir));
      return withClient(url, 'readonly', context, async (client) => {
        const range = codonRange(checkpoints, codon);
        if (!range.from || !range.to) {
          const ended = [...new Set(checkpoints.map((c) => c.codonId).filter((id) => id !== ''))];
          throw new ToolError(
            `codon ${codon} has no end checkpoint in the current run's lineage (it has not ended since the run began, or there is no such codon); codons with checkpoints: ${ended.join(', ') || 'none'}`,
          );
        }
        const diff = await client.request(
          'checkpoint.diff',
          { from: range.from.sha, to: range.to.sha, ...(path ? { path } : {}) },
          'checkpoint.diff',
          { timeoutMs: 30_000 },
        );
        const { from, to } = range;
        return answer(diffText(codon, { from, to }, diff.data), {
          codon,
          from: from.sha,
          to: to.sha,
          files: diffSummary(diff.data),
          truncated: diff.data.truncated,
        });
      });
    },
  });
}
