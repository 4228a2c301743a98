import { describe, expect, it } from 'vitest';
import { AgentInput, userMessageLine } from '../../src/agents/agent-input.ts';
import { parseInputLine } from '../../src/agents/builtin/inbox.ts';
import type { StreamLine } from '../../src/agents/stream-line.ts';

const replay = (text: string): StreamLine => ({
  type: 'user',
  isReplay: true,
  message: { content: [{ type: 'text', text }] },
});
const result: StreamLine = { type: 'result', subtype: 'success', is_error: false };

function input(format: 'text' | 'stream-json' = 'stream-json') {
  const written: string[] = [];
  let ended = 0;
  const agent = new AgentInput(format, 'the prompt', {
    write: (line) => written.push(line),
    end: () => {
      ended += 1;
    },
  });
  return { agent, written, ended: () => ended };
}

describe('AgentInput (an agent stdin that takes messages)', () => {
  it('writes the prompt as the first stream-json user message and keeps stdin open', () => {
    const { agent, written, ended } = input();
    expect(written).toEqual([userMessageLine('the prompt')]);
    expect(JSON.parse(written[0] ?? '')).toEqual({
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: 'the prompt' }] },
    });
    expect(ended()).toBe(0);
    expect(agent.inTurn).toBe(true);
  });

  it('closes stdin at a result with nothing pending; nothing is sent after', () => {
    const { agent, written, ended } = input();
    agent.seen(replay('the prompt'));
    expect(agent.send('mid-turn')).toBe(true);
    agent.seen(replay('mid-turn'));
    agent.seen(result);
    expect(ended()).toBe(1);
    expect(agent.inTurn).toBe(false);
    expect(agent.send('too late')).toBe(false);
    expect(written).toHaveLength(2);
  });

  it('keeps stdin open past a result while a message is pending: the agent runs a turn for it', () => {
    const { agent, ended } = input();
    agent.seen(replay('the prompt'));
    expect(agent.send('during the last request')).toBe(true);
    agent.seen(result);
    expect(ended()).toBe(0);
    // Between the turns: what is sent now starts the next one.
    expect(agent.inTurn).toBe(false);
    expect(agent.send('between turns')).toBe(true);
    agent.seen(replay('during the last request'));
    expect(agent.inTurn).toBe(true);
    agent.seen(replay('between turns'));
    agent.seen(result);
    expect(ended()).toBe(1);
  });

  it('plain text: the prompt alone, stdin closed at once, no messages', () => {
    const { agent, written, ended } = input('text');
    expect(written).toEqual(['the prompt']);
    expect(ended()).toBe(1);
    expect(agent.send('hello')).toBe(false);
  });

  it('takes nothing once the agent has exited', () => {
    const { agent } = input();
    agent.ended();
    expect(agent.send('hello')).toBe(false);
    expect(agent.inTurn).toBe(false);
  });
});

describe('parseInputLine (the built-in agent reads stream-json input)', () => {
  it.each([
    [userMessageLine('hi').trim(), { ok: true, text: 'hi' }],
    ['{"type":"user","message":{"role":"user","content":"plain"}}', { ok: true, text: 'plain' }],
    [
      '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}',
      { ok: true, text: 'a\nb' },
    ],
    ['not json', { ok: false, error: 'not JSON' }],
    ['{"type":"control_request"}', { ok: false, error: 'not a stream-json user message' }],
    [
      '{"type":"user","message":{"role":"user","content":[]}}',
      { ok: false, error: 'the message has no text' },
    ],
  ])('%s', (line, expected) => {
    expect(parseInputLine(line)).toEqual(expected);
  });
});
