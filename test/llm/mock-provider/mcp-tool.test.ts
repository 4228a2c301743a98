import { describe, expect, it } from 'vitest';
import { geminiViewOf } from '../../../src/llm/mock-provider/gemini-view.ts';
import { mcpCall, NOT_OFFERED, resolveMcpTools } from '../../../src/llm/mock-provider/mcp-tool.ts';
import { viewOf } from '../../../src/llm/mock-provider/request-view.ts';
import { responsesViewOf } from '../../../src/llm/mock-provider/responses-view.ts';
import { parseScript } from '../../../src/llm/mock-provider/script-loader.ts';

const call = { server: 'marker', tool: 'leave_mark', input: { text: 'hi' } };
const fn = (name: string) => ({ name, description: '', input_schema: { type: 'object' } });

/** An Anthropic Messages request declaring `tools` by name. */
const anthropic = (...names: string[]) =>
  viewOf(
    {
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'go' }],
      tools: names.map(fn),
    },
    {},
  );

describe('an MCP tool call in a script, as each agent names the tool', () => {
  it('Claude Code and the built-in agent: mcp__<server>__<tool> (Anthropic tools)', () => {
    const view = anthropic('Bash', 'mcp__marker__leave_mark', 'mcp__marker__whoami');
    expect(mcpCall(call, view)).toEqual({
      tool_use: { name: 'mcp__marker__leave_mark', input: { text: 'hi' } },
    });
  });

  it('opencode: <server>_<tool>', () => {
    expect(mcpCall(call, anthropic('bash', 'marker_leave_mark'))).toEqual({
      tool_use: { name: 'marker_leave_mark', input: { text: 'hi' } },
    });
  });

  it('Gemini CLI: mcp_<server>_<tool> among its functionDeclarations', () => {
    const view = geminiViewOf(
      {
        contents: [{ role: 'user', parts: [{ text: 'go' }] }],
        tools: [{ functionDeclarations: [{ name: 'run_shell_command' }, { name: 'mcp_marker_leave_mark' }] }],
      },
      'gemini-2.5-pro',
      {},
    );
    expect(mcpCall({ ...call, id: 'c1' }, view)).toEqual({
      tool_use: { name: 'mcp_marker_leave_mark', input: { text: 'hi' }, id: 'c1' },
    });
  });

  it('Codex: <tool> in the namespace mcp__<server> (OpenAI Responses namespace tools)', () => {
    const view = responsesViewOf(
      {
        model: 'gpt-5.1-codex',
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }],
        tools: [
          { type: 'function', name: 'exec_command' },
          { type: 'namespace', name: 'mcp__marker', tools: [{ type: 'function', name: 'leave_mark' }] },
        ],
      },
      {},
    );
    expect(mcpCall(call, view)).toEqual({
      tool_use: { name: 'leave_mark', namespace: 'mcp__marker', input: { text: 'hi' } },
    });
  });

  it("Codex's code-mode models: a deferred namespace, called from a script of its exec tool", () => {
    const view = responsesViewOf(
      {
        model: 'gpt-6.2-sol',
        input: [
          {
            type: 'message',
            role: 'developer',
            content: [
              { type: 'input_text', text: '<tools>\nDeferred tool namespaces:\n- mcp__marker\n</tools>' },
            ],
          },
          {
            type: 'additional_tools',
            tools: [{ type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec' }] }],
          },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
        ],
      },
      {},
    );
    expect(view.deferredNamespaces).toEqual(['mcp__marker']);
    expect(mcpCall(call, view)).toEqual({
      tool_use: { name: 'exec', input: 'text(await tools.mcp__marker__leave_mark({"text":"hi"}));\n' },
    });
  });

  it("Codex's deferred namespaces: a server with instructions, and those added and removed in a continued session", () => {
    const message = (text: string) => ({
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text }],
    });
    const view = responsesViewOf(
      {
        model: 'gpt-6.2-sol',
        input: [
          message('Deferred tool namespaces:\n- mcp__ribosome: Ribosome runs plans.\n- mcp__old\n'),
          message('Added deferred tool namespaces:\n- mcp__marker\n'),
          message('Removed deferred tool namespaces:\n- mcp__old\n'),
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
        ],
      } as never,
      {},
    );
    expect(view.deferredNamespaces).toEqual(['mcp__ribosome', 'mcp__marker']);
    const gone = responsesViewOf(
      {
        model: 'gpt-6.2-sol',
        input: [
          message('Deferred tool namespaces:\n- mcp__marker\n'),
          message('No deferred tool namespaces remain.'),
        ],
      } as never,
      {},
    );
    expect(gone.deferredNamespaces).toEqual([]);
  });

  it('the bare tool name when it alone is declared so; never when two are', () => {
    expect(mcpCall(call, anthropic('leave_mark'))).toEqual({
      tool_use: { name: 'leave_mark', input: { text: 'hi' } },
    });
    expect(mcpCall(call, anthropic('leave_mark', 'leave_mark'))).toEqual({
      text: expect.stringContaining(NOT_OFFERED),
    });
  });

  it("a request without the server's tool gets a text saying it was not offered", () => {
    const said = mcpCall(call, anthropic('Bash', 'mcp__other__leave_mark'));
    expect(said).toEqual({
      text: 'The tool leave_mark of MCP server marker was not offered: the request declares no tool of that server.',
    });
  });

  it('a turn keeps its other blocks; error and stall turns pass as they are', () => {
    const parsed = parseScript({
      turns: [{ content: [{ text: 'Marking.' }, { mcp_tool: call }] }, { error: { status: 500 } }],
    });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const [reply, error] = parsed.script.turns;
    if (!reply || !error) throw new Error('two turns');
    expect(resolveMcpTools(reply, anthropic('mcp__marker__leave_mark'))).toMatchObject({
      content: [{ text: 'Marking.' }, { tool_use: { name: 'mcp__marker__leave_mark' } }],
    });
    expect(resolveMcpTools(error, anthropic())).toBe(error);
  });

  it('a script refuses an mcp_tool without its server or tool', () => {
    const parsed = parseScript({ turns: [{ content: [{ mcp_tool: { tool: 'leave_mark' } }] }] });
    expect(parsed.ok).toBe(false);
  });
});
