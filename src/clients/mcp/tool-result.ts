import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CommandError } from '../../core/client/index.ts';

/** A tool's refusal, said to the model as it is (`isError: true`): what went wrong and what to do. */
export class ToolError extends Error {}

/**
 * A tool's answer: text a model reads, and the same facts as `structuredContent` when given, the text
 * first in it as `summary`: some clients give their model the structured content instead of the text
 * (Claude Code does), and the model should read the same words either way.
 */
export function answer(text: string, structured?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: { summary: text, ...structured } } : {}),
  };
}

export function refusal(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * What went wrong, as a tool error: a ToolError's or a server's refusal (a CommandError: its code and
 * message) as said; anything else prefixed, so the model can tell a bug from a refusal. Never thrown on:
 * a failed tool is an answer, not a crash of the MCP server.
 */
export function errorAnswer(error: unknown): CallToolResult {
  if (error instanceof ToolError || error instanceof CommandError) return refusal(error.message);
  return refusal(`the tool failed: ${error instanceof Error ? error.message : String(error)}`);
}
