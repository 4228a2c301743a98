import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AgentInput,
  messageContent,
  takenUp,
  UNTAKEN_QUIET_MS,
  type UntakenWhy,
  userMessageLine,
} from '../../src/agents/agent-input.ts';
import { parseInputLine } from '../../src/agents/builtin/inbox.ts';
import { untakenNotice } from '../../src/agents/spawn-agent.ts';
import type { StreamLine } from '../../src/agents/stream-line.ts';

/** A replay as Claude Code prints it: the blocks of every message it took up together, in order. */
const replay = (...texts: string[]): StreamLine => ({
  type: 'user',
  isReplay: true,
  message: { content: texts.flatMap((text) => messageContent(text)) },
});
const result: StreamLine = { type: 'result', subtype: 'success', is_error: false };
const assistant: StreamLine = {
  type: 'assistant',
  message: { id: 'm1', content: [{ type: 'text', text: 'working' }] },
};

function input(format: 'text' | 'stream-json' = 'stream-json') {
  const written: string[] = [];
  const untaken: string[][] = [];
  const why: UntakenWhy[] = [];
  let ended = 0;
  const agent = new AgentInput(format, 'the prompt', {
    write: (line) => written.push(line),
    end: () => {
      ended += 1;
    },
    untaken: (texts, reason) => {
      untaken.push([...texts]);
      why.push(reason);
    },
  });
  return { agent, written, untaken, why, ended: () => ended };
}

afterEach(() => {
  vi.useRealTimers();
});

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

  it('counts the messages sent and not yet taken up, and their bytes (the prompt is none of them)', () => {
    const { agent } = input();
    expect(agent.backlog).toEqual({ count: 0, bytes: 0 });
    agent.send('one');
    agent.send('twé');
    expect(agent.backlog).toEqual({ count: 2, bytes: 3 + 4 });
    agent.seen(replay('the prompt', 'one'));
    expect(agent.backlog).toEqual({ count: 1, bytes: 4 });
    agent.seen(replay('twé'));
    expect(agent.backlog).toEqual({ count: 0, bytes: 0 });
    agent.send('three');
    agent.ended();
    expect(agent.backlog).toEqual({ count: 0, bytes: 0 });
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

describe('AgentInput: what the agent prints back does not always match what was sent', () => {
  it('a replay holding several messages (Claude Code merges those it takes up together) takes each', () => {
    const { agent, ended } = input();
    agent.seen(replay('the prompt'));
    agent.send('first late');
    agent.send('second late');
    agent.send('third late');
    agent.seen(result);
    agent.seen(replay('first late'));
    agent.seen(result);
    expect(ended()).toBe(0);
    agent.seen(replay('second late', 'third late'));
    agent.seen(result);
    expect(ended()).toBe(1);
  });

  it('a replay that matches no pending text still takes one message, the oldest', () => {
    const { agent, ended } = input();
    agent.seen(replay('the prompt'));
    agent.send('hello');
    agent.send('world');
    agent.seen(replay('HELLO (changed)'));
    agent.seen(result);
    expect(ended()).toBe(0);
    agent.seen(replay('world'));
    agent.seen(result);
    expect(ended()).toBe(1);
  });

  it('a message never printed back stays pending while later ones are taken', () => {
    vi.useFakeTimers();
    const { agent, ended, untaken } = input();
    agent.seen(replay('the prompt'));
    agent.send('swallowed');
    agent.send('taken');
    agent.seen(result);
    agent.seen(replay('taken'));
    agent.seen(result);
    expect(ended()).toBe(0);
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS);
    expect(ended()).toBe(1);
    expect(untaken).toEqual([['swallowed']]);
  });

  it.each([
    [
      ['a', 'b'],
      ['a', 'b'],
      [0, 1],
    ],
    [['a', 'b'], ['a'], [0]],
    [['a', 'b'], ['b'], [1]],
    [['Look ok', 'ok'], ['Look ok'], [0]],
    [['x', 'y'], ['z'], [0]],
    [
      ['line one\nline two', 'next'],
      ['line one\nline two', 'next'],
      [0, 1],
    ],
    [[], ['a'], []],
  ])('takenUp(%j, replay %j) = %j', (pending, replayed, expected) => {
    expect(takenUp(pending, replayed)).toEqual(expected);
  });
});

describe('AgentInput safety net: messages the agent does not take up after its result', () => {
  it('closes the input once the agent stays quiet after a result, and says which messages were left', () => {
    vi.useFakeTimers();
    const { agent, ended, untaken } = input();
    agent.seen(replay('the prompt'));
    agent.send('/quirk one');
    agent.send('quirk two');
    agent.seen(result);
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS - 1);
    // Output after the result (Claude Code printing a session of its own) is a sign of life: the wait starts again.
    agent.seen({ type: 'system', subtype: 'init', session_id: 'new' });
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS - 1);
    expect(ended()).toBe(0);
    expect(untaken).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ended()).toBe(1);
    expect(untaken).toEqual([['/quirk one', 'quirk two']]);
    expect(agent.send('too late')).toBe(false);
    // What the codon's journal then says (an info, after "codon one's agent ").
    expect(untakenNotice(['/quirk one', 'quirk two'])).toBe(
      'did not take up 2 messages ("/quirk one", "quirk two") after its answer and printed nothing for 5 s: its input was closed, so the codon ends without them',
    );
  });

  it('does nothing while the agent takes the message up and answers, however long the turn', () => {
    vi.useFakeTimers();
    const { agent, ended, untaken } = input();
    agent.seen(replay('the prompt'));
    agent.send('late');
    agent.seen(result);
    agent.seen(replay('late'));
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS * 10);
    agent.seen(assistant);
    expect(ended()).toBe(0);
    agent.seen(result);
    expect(ended()).toBe(1);
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS * 2);
    expect(untaken).toEqual([]);
    expect(ended()).toBe(1);
  });

  it('a message sent between turns starts the wait again; an agent that exits ends it', () => {
    vi.useFakeTimers();
    const { agent, ended, untaken } = input();
    agent.seen(replay('the prompt'));
    agent.send('one');
    agent.seen(result);
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS - 1);
    agent.send('two');
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS - 1);
    expect(ended()).toBe(0);
    agent.ended();
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS * 2);
    expect(ended()).toBe(0);
    expect(untaken).toEqual([]);
  });
});

describe('AgentInput: the prompt is never a message left over', () => {
  const failed: StreamLine = { type: 'result', subtype: 'error_during_execution', is_error: true };

  it('a run that failed before its first turn: stdin closed at once, nothing said', () => {
    vi.useFakeTimers();
    const { agent, ended, untaken } = input();
    agent.seen({ type: 'system', subtype: 'init', session_id: 's' });
    agent.seen(failed);
    expect(ended()).toBe(1);
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS * 2);
    expect(untaken).toEqual([]);
    expect(agent.send('too late')).toBe(false);
  });

  it('messages sent before it failed are said as never taken up, not the prompt, in those words', () => {
    const { agent, ended, untaken, why } = input();
    agent.send('steer it');
    agent.seen(failed);
    expect(ended()).toBe(1);
    expect(untaken).toEqual([['steer it']]);
    expect(why).toEqual(['failed-first']);
    expect(untakenNotice(['steer it'], 'failed-first')).toBe(
      'failed before its first turn, so it never took up a message ("steer it") sent to it: the codon ends without it',
    );
  });

  it('a prompt the agent ran without printing it back (a command of its own) ends with its turn', () => {
    vi.useFakeTimers();
    const { agent, ended, untaken } = input();
    agent.seen(result);
    expect(ended()).toBe(1);
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS * 2);
    expect(untaken).toEqual([]);
  });

  it('after such a prompt, a message still pending is waited for, and said alone if left', () => {
    vi.useFakeTimers();
    const { agent, ended, untaken, why } = input();
    agent.send('next');
    agent.seen(result);
    expect(ended()).toBe(0);
    vi.advanceTimersByTime(UNTAKEN_QUIET_MS);
    expect(ended()).toBe(1);
    expect(untaken).toEqual([['next']]);
    expect(why).toEqual(['quiet']);
  });
});

describe('messageContent: a message is text for the model, never an agent CLI command', () => {
  it('adds an empty text block after a text starting with a slash, so Claude Code does not run it', () => {
    expect(messageContent('/clear')).toEqual([
      { type: 'text', text: '/clear' },
      { type: 'text', text: '' },
    ]);
    expect(messageContent('  /cost please')).toHaveLength(2);
    expect(messageContent('/etc/hosts is the file')).toHaveLength(2);
    expect(messageContent('look at /tmp')).toEqual([{ type: 'text', text: 'look at /tmp' }]);
  });

  it('messages get that form, the prompt is written as it is', () => {
    const { agent, written } = input();
    agent.send('/clear');
    expect(JSON.parse(written[1] ?? '').message.content).toEqual(messageContent('/clear'));
    const prompt = new AgentInput('stream-json', '/review', {
      write: (line) => written.push(line),
      end: () => {},
    });
    expect(prompt.inTurn).toBe(true);
    expect(JSON.parse(written.at(-1) ?? '').message.content).toEqual([{ type: 'text', text: '/review' }]);
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
    [userMessageLine('/clear', true).trim(), { ok: true, text: '/clear' }],
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
