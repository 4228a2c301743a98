/**
 * A script's MCP tool call (`mcp_tool: { server, tool, input }`) as the request's agent names that
 * tool, so one script calls it whatever the agent (docs/mcp.md#how-each-agent-gets-them):
 * - Claude Code and the built-in agent declare `mcp__<server>__<tool>`;
 * - Gemini CLI `mcp_<server>_<tool>`; opencode `<server>_<tool>`;
 * - Codex `<tool>` in the namespace `mcp__<server>` (a namespaced function_call); its code-mode models
 *   (gpt-6.x) are told the namespace is deferred and reach its tools from their `exec` tool, so the
 *   call is an `exec` script calling `tools.mcp__<server>__<tool>(input)`;
 * - `<server>__<tool>`, or the bare `<tool>` when the request declares exactly one tool of that name.
 * A request declaring none of these gets a text saying the tool was not offered. Pure.
 */
import type { DeclaredTool, RequestView } from './request-view.ts';
import type {
  McpToolBlock,
  PlayedReply,
  PlayedUsageLimit,
  ReplyTurn,
  Turn,
  UsageLimitTurn,
  WireBlock,
} from './script-schema.ts';

/** Codex's code-mode tool that runs a script of nested tool calls (a freeform tool, in its `functions` namespace). */
const CODE_MODE_TOOL = 'exec';

/** The words a turn says in place of a call of a tool the request did not offer. */
export const NOT_OFFERED = 'was not offered';

/** A played turn with its mcp_tool blocks resolved against the request; other turns as they are. */
export function resolveMcpTools(
  turn: Exclude<Turn, UsageLimitTurn>,
  view: Pick<RequestView, 'tools' | 'deferredNamespaces'>,
): Exclude<PlayedReply, PlayedUsageLimit>;
export function resolveMcpTools(
  turn: Turn,
  view: Pick<RequestView, 'tools' | 'deferredNamespaces'>,
): PlayedReply | UsageLimitTurn;
export function resolveMcpTools(
  turn: Turn,
  view: Pick<RequestView, 'tools' | 'deferredNamespaces'>,
): PlayedReply | UsageLimitTurn {
  if (!('content' in turn)) return turn;
  const content = turn.content.map((block) => ('mcp_tool' in block ? mcpCall(block.mcp_tool, view) : block));
  const reply: ReplyTurn = { ...turn, content };
  return reply;
}

/** The block calling `call` under the name the request gives its tool, or a text saying it is not there. */
export function mcpCall(
  call: McpToolBlock['mcp_tool'],
  view: Pick<RequestView, 'tools' | 'deferredNamespaces'>,
): WireBlock {
  const { server, tool, input, id } = call;
  const at = id ? { id } : {};
  const flat = view.tools.filter((t) => t.namespace === undefined);
  const namespace = `mcp__${server}`;
  if (view.tools.some((t) => t.namespace === namespace && t.name === tool))
    return { tool_use: { name: tool, namespace, input, ...at } };
  const name = [
    `mcp__${server}__${tool}`,
    `mcp_${server}_${tool}`,
    `${server}__${tool}`,
    `${server}_${tool}`,
  ].find((candidate) => flat.some((t) => t.name === candidate));
  if (name) return { tool_use: { name, input, ...at } };
  if (view.deferredNamespaces.includes(namespace) && view.tools.some(isCodeMode))
    return { tool_use: { name: CODE_MODE_TOOL, input: codeModeScript(server, tool, input), ...at } };
  if (flat.filter((t) => t.name === tool).length === 1) return { tool_use: { name: tool, input, ...at } };
  return {
    text: `The tool ${tool} of MCP server ${server} ${NOT_OFFERED}: the request declares no tool of that server.`,
  };
}

const isCodeMode = (tool: DeclaredTool) => tool.name === CODE_MODE_TOOL && tool.freeform === true;

/** The `exec` script calling the tool with `input` and answering its result (Codex's code mode). */
export function codeModeScript(server: string, tool: string, input: Record<string, unknown>): string {
  return `text(await tools.mcp__${server}__${tool}(${JSON.stringify(input)}));\n`;
}
