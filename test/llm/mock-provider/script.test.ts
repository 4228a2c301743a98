import { describe, expect, it } from 'vitest';
import type { RequestView } from '../../../src/llm/mock-provider/request-view.ts';
import { parseScript, parseScriptText } from '../../../src/llm/mock-provider/script-loader.ts';
import { createScriptPlayer, trackMatches } from '../../../src/llm/mock-provider/script-player.ts';
import type { Script, ScriptInput } from '../../../src/llm/mock-provider/script-schema.ts';

function script(input: ScriptInput): Script {
  const parsed = parseScript(input);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.script;
}

const view = (overrides: Partial<RequestView> = {}): RequestView => ({
  api: 'anthropic',
  model: 'claude-sonnet-4-5',
  system: 'You are a coding agent.',
  firstUser: 'Create hello.txt',
  lastUser: 'Create hello.txt',
  hasTools: true,
  tools: [],
  deferredNamespaces: [],
  headers: {},
  ...overrides,
});

describe('script validation', () => {
  it('fills defaults: empty tracks and turns, "Done." when exhausted', () => {
    expect(script({})).toEqual({
      tracks: [],
      turns: [],
      whenExhausted: { content: [{ text: 'Done.' }] },
      defaults: {},
    });
  });

  it('reads YAML', () => {
    const parsed = parseScriptText(
      'turns:\n  - content:\n      - tool_use: { name: Write, input: { file_path: a } }\n',
    );
    expect(parsed.ok && parsed.script.turns[0]).toEqual({
      content: [{ tool_use: { name: 'Write', input: { file_path: 'a' } } }],
    });
  });

  it('names the field and the problem, even inside unions', () => {
    const parsed = parseScript(
      {
        turns: [
          { content: [{ text: 'a' }] },
          { error: { status: 'x' } },
          { content: [{ tool_use: { nme: 'W' } }] },
          { foo: 1 },
        ],
      },
      'demo.yaml',
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.code).toBe('SCRIPT_INVALID');
    expect(parsed.error.message).toContain('demo.yaml is not a valid script');
    expect(parsed.error.message).toContain('turns[1].error.status');
    expect(parsed.error.message).toContain('Unrecognized key: "nme"');
    expect(parsed.error.message).toContain('turns[3]');
    expect(parsed.error.message).toContain('a turn needs exactly one of: content, error, stall');
  });

  it('refuses empty matches and duplicate track names', () => {
    const parsed = parseScript({
      tracks: [
        { name: 'a', match: {} },
        { name: 'a', match: { model: 'x' } },
      ],
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.message).toContain('a match needs at least one condition');
    expect(parsed.error.message).toContain('duplicate track name "a"');
  });

  it('reports YAML syntax errors as SCRIPT_SYNTAX', () => {
    const parsed = parseScriptText('turns: [', 'bad.yaml');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.code).toBe('SCRIPT_SYNTAX');
  });
});

describe('trackMatches', () => {
  it('requires every condition given', () => {
    expect(trackMatches({ model: 'claude-haiku' }, view({ model: 'claude-haiku-4-5-20251001' }))).toBe(true);
    expect(trackMatches({ model: 'claude-haiku' }, view())).toBe(false);
    expect(trackMatches({ system: 'coding agent', tools: true }, view())).toBe(true);
    expect(trackMatches({ system: 'coding agent', tools: false }, view())).toBe(false);
    expect(trackMatches({ firstUser: 'hello.txt' }, view())).toBe(true);
    expect(trackMatches({ lastUser: 'tool output' }, view({ lastUser: 'the tool output' }))).toBe(true);
    expect(
      trackMatches({ header: { 'X-Caller': 'sentinel' } }, view({ headers: { 'x-caller': 'sentinel-1' } })),
    ).toBe(true);
    expect(trackMatches({ header: { 'x-caller': 'sentinel' } }, view())).toBe(false);
    expect(trackMatches({ api: 'gemini', tools: true }, view({ api: 'gemini' }))).toBe(true);
    expect(trackMatches({ api: 'gemini' }, view())).toBe(false);
  });
});

describe('createScriptPlayer', () => {
  it('routes by track, expands repeat, then answers with whenExhausted', () => {
    const player = createScriptPlayer(
      script({
        tracks: [
          { name: 'sentinel', match: { system: 'You watch' }, turns: [{ content: [{ text: 'ok' }] }] },
          {
            name: 'titles',
            match: { tools: false },
            loop: true,
            turns: [{ content: [{ text: 't1' }] }, { content: [{ text: 't2' }] }],
          },
        ],
        turns: [{ error: { status: 429 }, repeat: 2 }, { content: [{ text: 'agent' }] }],
        whenExhausted: { error: { status: 500, message: 'script exhausted' } },
      }),
    );
    const agent = view();
    const sentinel = view({ system: 'You watch the agent', hasTools: false });
    const title = view({ system: 'Generate a title', hasTools: false });

    expect(player.next(agent)).toMatchObject({
      track: 'default',
      position: 0,
      turn: { error: { status: 429 } },
    });
    expect(player.next(sentinel)).toMatchObject({ track: 'sentinel', position: 0 });
    expect(player.next(agent)).toMatchObject({
      track: 'default',
      position: 1,
      turn: { error: { status: 429 } },
    });
    expect(player.next(title)).toMatchObject({ track: 'titles', turn: { content: [{ text: 't1' }] } });
    expect(player.next(agent)).toMatchObject({
      track: 'default',
      position: 2,
      turn: { content: [{ text: 'agent' }] },
    });
    expect(player.next(title)).toMatchObject({ track: 'titles', turn: { content: [{ text: 't2' }] } });
    expect(player.next(title)).toMatchObject({
      track: 'titles',
      position: 0,
      turn: { content: [{ text: 't1' }] },
    });
    expect(player.next(agent)).toMatchObject({
      track: 'default',
      position: null,
      turn: { error: { status: 500 } },
    });
    expect(player.next(sentinel)).toMatchObject({
      track: 'sentinel',
      position: null,
      turn: { error: { status: 500 } },
    });
    expect(player.remaining()).toEqual({ sentinel: 0, titles: Number.POSITIVE_INFINITY, default: 0 });
  });

  it('lets a track override whenExhausted and applies script defaults to every turn', () => {
    const player = createScriptPlayer(
      script({
        defaults: { chunkDelayMs: 5 },
        tracks: [
          { name: 'side', match: { tools: false }, whenExhausted: { content: [{ text: 'side reply' }] } },
        ],
        turns: [{ content: [{ text: 'a' }], chunkDelayMs: 1 }],
      }),
    );
    expect(player.next(view({ hasTools: false }))).toMatchObject({
      track: 'side',
      turn: { content: [{ text: 'side reply' }], chunkDelayMs: 5 },
    });
    expect(player.next(view())).toMatchObject({ turn: { chunkDelayMs: 1 } });
    expect(player.next(view())).toMatchObject({ turn: { content: [{ text: 'Done.' }], chunkDelayMs: 5 } });
  });
});
