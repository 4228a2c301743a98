/**
 * The shape of a built-in tool. `defineTool` owns the parts every tool shares: validating the model's
 * input with zod, publishing its JSON Schema, and turning any failure into an is_error result (a bad
 * tool call must never crash the agent).
 */
import { z } from 'zod';
import type { ToolDefinition } from '../../../llm/schemas.ts';

export type ToolContext = {
  /** The agent root, already resolved with realpath; every path a tool touches stays inside it. */
  root: string;
  /**
   * Real directories outside the root that Read may reach through a link in it and that Write and
   * Edit refuse (the data directory).
   */
  readOnly?: readonly string[];
  signal?: AbortSignal;
};

export type ToolOutcome = { content: string; isError: boolean };

export type Tool = {
  name: string;
  definition: ToolDefinition;
  execute(input: unknown, context: ToolContext): Promise<ToolOutcome>;
};

export const ok = (content: string): ToolOutcome => ({ content, isError: false });
export const failure = (content: string): ToolOutcome => ({ content, isError: true });

export function defineTool<S extends z.ZodType>(spec: {
  name: string;
  description: string;
  input: S;
  run(input: z.output<S>, context: ToolContext): Promise<ToolOutcome>;
}): Tool {
  const { $schema: _, ...inputSchema } = z.toJSONSchema(spec.input, { io: 'input' });
  return {
    name: spec.name,
    definition: { name: spec.name, description: spec.description, input_schema: inputSchema },
    async execute(input, context) {
      const parsed = spec.input.safeParse(input);
      if (!parsed.success) {
        return failure(
          `InputValidationError: ${spec.name} ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
        );
      }
      try {
        return await spec.run(parsed.data, context);
      } catch (err) {
        return failure(`${spec.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}
