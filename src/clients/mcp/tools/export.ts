import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { checkExportArgs, ExportError, runExport } from '../../../execution/export/index.ts';
import { displayLine } from '../../model/display-text.ts';
import type { McpContext } from '../context.ts';
import { registerTool } from '../register.ts';
import { findTarget } from '../target.ts';
import { answer, ToolError } from '../tool-result.ts';
import { executionArg } from './reading.ts';

/** export: `ribosome export` (it reads the checkpoint store only: no server needed). */
export function registerExportTool(server: McpServer, context: McpContext): void {
  registerTool(server, context, {
    name: 'export',
    title: 'Export the work',
    description:
      "Hand the latest run's completed codons back, as `ribosome export` does: toBranch (a branch of the workspace repository, or repo, one commit per codon), patch (one patch file), or dir (the last completed codon's files in an empty directory). Give exactly one.",
    input: {
      execution: executionArg,
      toBranch: z.string().min(1).optional().describe('Create this branch, one commit per completed codon'),
      repo: z
        .string()
        .min(1)
        .optional()
        .describe('With toBranch: the repository (default: the recorded workspace)'),
      force: z.boolean().optional().describe('With toBranch: replace an existing branch'),
      patch: z.string().min(1).optional().describe('Write one patch to this file'),
      dir: z
        .string()
        .min(1)
        .optional()
        .describe("Write the last completed codon's files into this empty directory"),
    },
    run: async ({ execution, ...flags }, progress) => {
      const target = await findTarget(execution, context);
      const checked = checkExportArgs({ ...flags, execution: target.dir }, context.cwd);
      if (!checked.ok) throw new ToolError(asArguments(checked.message));
      progress(`exporting ${target.dir}`);
      const said = await runExport(checked.value).catch((error: unknown) => {
        throw error instanceof ExportError ? new ToolError(asArguments(error.message)) : error;
      });
      progress('exported');
      return answer(displayLine(said), { execution: target.dir, result: said });
    },
  });
}

/** The command line's words (--to-branch, --repo PATH) named as this tool's arguments. Pure. */
export function asArguments(message: string): string {
  return message
    .replace(/--to-branch/g, 'toBranch')
    .replace(/--repo PATH/g, 'repo')
    .replace(/--workspace/g, 'start_plan workspace')
    .replace(/--(\w+)/g, '$1');
}
