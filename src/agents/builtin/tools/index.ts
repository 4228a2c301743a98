/** The built-in agent's tools, in the order they are offered to the model. */
import { bashTool } from './bash.ts';
import { editTool } from './edit.ts';
import { globTool } from './glob.ts';
import { grepTool } from './grep.ts';
import { readTool } from './read.ts';
import type { Tool, ToolContext, ToolOutcome } from './tool.ts';
import { writeTool } from './write.ts';

export const BUILTIN_TOOLS: readonly Tool[] = [bashTool, editTool, globTool, grepTool, readTool, writeTool];

const byName = new Map(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));

/** Runs a built-in tool; an unknown name is an error naming every tool offered (`others`: the MCP servers'). */
export async function runTool(
  name: string,
  input: unknown,
  context: ToolContext,
  others: readonly string[] = [],
): Promise<ToolOutcome> {
  const tool = byName.get(name);
  if (!tool) {
    const offered = [...byName.keys(), ...others].join(', ');
    return { content: `No such tool: ${name}. Available: ${offered}`, isError: true };
  }
  return tool.execute(input, context);
}
