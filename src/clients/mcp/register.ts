import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ShapeOutput, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpContext } from './context.ts';
import { type Progress, progressOf, type ToolExtra } from './progress.ts';
import { offeredTools, type ToolName } from './tool-names.ts';
import { errorAnswer } from './tool-result.ts';

/** One tool: its name, what a model reads of it, its arguments (zod), and what it does. */
export type ToolSpec<S extends ZodRawShapeCompat> = {
  name: ToolName;
  title: string;
  description: string;
  input: S;
  run: (args: ShapeOutput<S>, progress: Progress, extra: ToolExtra) => Promise<CallToolResult>;
};

/**
 * Registers a tool unless the server is read-only and the tool writes (it is then absent from
 * tools/list, and a call by name is refused as unknown). Whatever the tool throws is its answer
 * (`isError: true`), never a crash of the server.
 */
export function registerTool<S extends ZodRawShapeCompat>(
  server: McpServer,
  context: McpContext,
  spec: ToolSpec<S>,
): void {
  if (!offeredTools(context.readonly).includes(spec.name)) return;
  const reads = offeredTools(true).includes(spec.name);
  const run = async (args: ShapeOutput<S>, extra: ToolExtra): Promise<CallToolResult> => {
    try {
      return await spec.run(args, progressOf(extra), extra);
    } catch (error) {
      return errorAnswer(error);
    }
  };
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      annotations: { readOnlyHint: reads, openWorldHint: false },
    },
    // The SDK's callback type is conditional on the shape, which TypeScript cannot resolve for a generic one.
    run as ToolCallback<S>,
  );
}
