import { describe, expect, it } from 'vitest';
import { mcpFields, StreamMapper } from '../../src/engine/stream-mapper.ts';

describe('MCP tool calls in events', () => {
  it('splits mcp__<server>__<tool> at the server (whose name never holds __); other tools get nothing', () => {
    expect(mcpFields('mcp__marker__leave_mark')).toEqual({ mcpServer: 'marker', mcpTool: 'leave_mark' });
    expect(mcpFields('mcp__my_srv-2__a__b')).toEqual({ mcpServer: 'my_srv-2', mcpTool: 'a__b' });
    expect(mcpFields('Write')).toEqual({});
    expect(mcpFields('mcp__x')).toEqual({});
    expect(mcpFields('mcp____t')).toEqual({});
  });

  it('the call and its result carry the server and the tool', () => {
    const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 100, now: () => 0 });
    const call = mapper.map({
      type: 'assistant',
      message: {
        id: 'm1',
        content: [{ type: 'tool_use', id: 't1', name: 'mcp__marker__leave_mark', input: { text: 'hi' } }],
      },
    } as never);
    const result = mapper.map({
      type: 'user',
      message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'marked' }] },
    } as never);
    const data = (out: typeof call) =>
      out.flatMap((o) => (o.kind === 'event' ? [o.event.data as Record<string, unknown>] : []));
    expect(data(call)[0]?.content).toBe('mcp__marker__leave_mark {"text":"hi"}');
    expect(data(call)[0]).toMatchObject({
      toolName: 'mcp__marker__leave_mark',
      mcpServer: 'marker',
      mcpTool: 'leave_mark',
    });
    expect(data(result)[0]).toMatchObject({
      toolName: 'mcp__marker__leave_mark',
      mcpServer: 'marker',
      result: 'marked',
    });
  });

  it("a call named after a server the codon does not have (a tool it was never offered) is no server's", () => {
    const mapper = new StreamMapper({
      codonId: 'c',
      maxResultChars: 100,
      now: () => 0,
      mcpServers: ['other'],
    });
    const [call] = mapper.map({
      type: 'assistant',
      message: {
        id: 'm1',
        content: [{ type: 'tool_use', id: 't1', name: 'mcp__marker__leave_mark', input: {} }],
      },
    } as never);
    const data = call?.kind === 'event' ? (call.event.data as Record<string, unknown>) : {};
    expect(data.toolName).toBe('mcp__marker__leave_mark');
    expect(data.mcpServer).toBeUndefined();
  });

  it("the agent's word that one of the codon's servers did not start is an info event naming it", () => {
    const mapper = new StreamMapper({
      codonId: 'c',
      maxResultChars: 100,
      now: () => 0,
      mcpServers: ['marker', 'web'],
    });
    const out = mapper.map({
      type: 'system',
      subtype: 'init',
      session_id: 's',
      mcp_servers: [
        { name: 'marker', status: 'failed' },
        { name: 'web', status: 'connected' },
        { name: 'users-own', status: 'failed' },
        'junk',
      ],
    } as never);
    const infos = out.flatMap((o) =>
      o.kind === 'event' && o.event.type === 'info' ? [o.event.data.message] : [],
    );
    expect(infos).toEqual([
      expect.stringMatching(/^MCP server "marker" did not start for the agent \(failed\)/),
    ]);
  });
});
