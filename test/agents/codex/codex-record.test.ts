/**
 * What Codex records but does not print: fixtures of the real codex-cli 0.171 against the scripted
 * provider, its `exec --json` stdout (`*-turn.jsonl`) and the same run's rollout file
 * (`*-rollout.jsonl`, without its long instruction, context and settings lines).
 * - failed-patch: an added f.txt, a patch whose context line is not in it, `exit 7`, "Patched f.txt
 *   successfully.";
 * - yielded-recorded: `sleep 15` with Codex's default wait (10 s), and "Slept.".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordedCalls } from '../../../src/agents/codex/codex-record.ts';
import { CodexTranslator, inRoot, STILL_RUNNING } from '../../../src/agents/codex/codex-translator.ts';
import { type MappedOutput, StreamMapper } from '../../../src/engine/stream-mapper.ts';

type ServerEvent = Extract<MappedOutput, { kind: 'event' }>['event'];

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/codex', name), 'utf8');
const lines = (name: string) =>
  fixture(name)
    .split('\n')
    .filter((l) => l.trim() !== '');

/**
 * The rollout as Codex had written it at each read: read `i` sees it through the first line holding
 * `through[i]`, or whole when there is no such mark.
 */
function recorded(rollout: string, through: string[] = []) {
  const calls = new RecordedCalls();
  const all = lines(rollout);
  let seen = 0;
  let reads = 0;
  return {
    readFailures: () => {
      const mark = through[reads++];
      const at = mark === undefined ? -1 : all.findIndex((l) => l.includes(mark));
      const end = at === -1 ? all.length : Math.max(seen, at + 1);
      for (const line of all.slice(seen, end)) calls.line(line);
      seen = Math.max(seen, end);
      return calls.take();
    },
    recordedWaits: () => calls.waits(),
  };
}

/** The codon's events for a turn, as the journal holds them. */
function events(turn: string, translator: CodexTranslator): ServerEvent[] {
  const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1000, costReported: false });
  const out = lines(turn).flatMap((text) => {
    const parsed = translator.line(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.lines;
  });
  return [...out, ...translator.end()]
    .flatMap((l) => mapper.map(l))
    .flatMap((o) => (o.kind === 'event' ? [o.event] : []));
}

const tools = (evs: ServerEvent[]) =>
  evs.flatMap((e) => {
    if (e.type === 'assistant.action') return [[e.data.action, e.data.toolName ?? e.data.content]];
    if (e.type === 'tool.result') return [['result', e.data.toolName, e.data.isError, e.data.toolUseId]];
    return [];
  });

describe('Codex: failures only its rollout holds (issue 30 M2)', () => {
  it('a patch refused before it ran is a failed call with its error, in its place in the turn', () => {
    const id = (codex: string) => `01a22832-5fba-7253-88dd-35b26bc04bab:1:${codex}`;
    // Read as each item starts and ends: the added file's, then the command's (written after the
    // failed patch), then the message and the turn's end.
    const live = recorded('failed-patch-rollout.jsonl', [
      '"type":"FileChange"',
      '"type":"FileChange"',
      '"name":"exec_command"',
    ]);
    const translator = new CodexTranslator({ model: 'm', ...live });
    const evs = events('failed-patch-turn.jsonl', translator);
    expect(tools(evs)).toEqual([
      ['tool_use', 'file_change'],
      ['result', 'file_change', false, id('item_0')],
      ['tool_use', 'apply_patch'],
      ['result', 'apply_patch', true, id('call_SdxLM57qsMYw87FATQrB5EYq')],
      ['tool_use', 'command_execution'],
      ['result', 'command_execution', true, id('item_1')],
      ['message', 'Patched f.txt successfully.'],
    ]);
    const failed = evs.find((e) => e.type === 'tool.result' && e.data.toolName === 'apply_patch');
    expect(failed?.type === 'tool.result' && failed.data.result).toMatch(
      /^apply_patch verification failed: Failed to find expected lines in .*f\.txt:\nno such line$/,
    );
    const call = evs.find((e) => e.type === 'assistant.action' && e.data.toolName === 'apply_patch');
    expect(call?.type === 'assistant.action' && call.data.toolInput).toMatchObject({ path: 'f.txt' });
    // The recorded call has the id of its result, as the printed ones do: a client pairs them by it.
    expect(call?.type === 'assistant.action' && call.data.toolUseId).toBe(
      id('call_SdxLM57qsMYw87FATQrB5EYq'),
    );
  });

  it('without its record the failed patch is invisible (what the fix reads)', () => {
    const evs = events('failed-patch-turn.jsonl', new CodexTranslator({ model: 'm' }));
    expect(tools(evs).map(([, name]) => name)).not.toContain('apply_patch');
  });

  it('a call the stream printed is not reported twice, nor one of an earlier run of the session', () => {
    const calls = new RecordedCalls();
    for (const line of lines('failed-patch-rollout.jsonl')) calls.line(line);
    expect(calls.take().map((f) => f.name)).toEqual(['apply_patch']);
    expect(calls.take()).toEqual([]);

    const again = new RecordedCalls(calls.callIds());
    for (const line of lines('failed-patch-rollout.jsonl')) again.line(line);
    expect(again.take()).toEqual([]);
  });

  it('an unknown tool, arguments it cannot parse and a failed code-mode script are failures; successes are not', () => {
    const call = (id: string, name: string, args: string) =>
      JSON.stringify({
        type: 'response_item',
        payload: { type: 'function_call', name, arguments: args, call_id: id },
      });
    const output = (id: string, out: unknown, type = 'function_call_output') =>
      JSON.stringify({ type: 'response_item', payload: { type, call_id: id, output: out } });
    const calls = new RecordedCalls();
    for (const line of [
      call('a', 'no_such_tool', '{"a":1}'),
      output('a', 'unsupported call: no_such_tool'),
      call('b', 'exec_command', '{"nope":1}'),
      output('b', 'failed to parse function arguments: missing field `cmd` at line 1 column 10'),
      JSON.stringify({
        type: 'response_item',
        payload: { type: 'custom_tool_call', name: 'exec', input: 'throw 1', call_id: 'c' },
      }),
      output(
        'c',
        [{ type: 'input_text', text: 'Script failed\nWall time 0.2 seconds' }],
        'custom_tool_call_output',
      ),
      call('d', 'update_plan', '{"plan":[]}'),
      output('d', 'Plan updated'),
    ]) {
      calls.line(line);
    }
    expect(calls.take().map((f) => [f.callId, f.name, f.error.split('\n')[0]])).toEqual([
      ['a', 'no_such_tool', 'unsupported call: no_such_tool'],
      ['b', 'exec_command', 'failed to parse function arguments: missing field `cmd` at line 1 column 10'],
      ['c', 'exec', 'Script failed'],
    ]);
  });
});

describe('Codex: a command it stopped waiting for, in its own words (issue 30 L)', () => {
  it('says how long Codex waited, as it recorded it (10 s, not "about 30 s")', () => {
    const translator = new CodexTranslator({ model: 'm', ...recorded('yielded-recorded-rollout.jsonl') });
    const result = events('yielded-recorded-turn.jsonl', translator).find((e) => e.type === 'tool.result');
    expect(result?.type === 'tool.result' && result.data.result).toMatch(
      /^still running when Codex ended its turn: Codex stopped waiting for it after 10 s \("Process running with session ID \d+"\), and its result was not reported$/,
    );
  });

  it('without a record it says what is known, and no number', () => {
    const result = events('yielded-recorded-turn.jsonl', new CodexTranslator({ model: 'm' })).find(
      (e) => e.type === 'tool.result',
    );
    expect(result?.type === 'tool.result' && result.data.result).toBe(STILL_RUNNING);
    expect(STILL_RUNNING).not.toMatch(/\d+ s\b/);
  });
});

describe('Codex: file changes relative to the agent root (issue 30 L)', () => {
  it('paths inside the root are relative, outside it absolute', () => {
    const item = {
      id: 'i',
      type: 'file_change',
      changes: [
        { path: '/x/root/src/a.ts', kind: 'update' },
        { path: '/x/other/b.ts', kind: 'add' },
      ],
    };
    expect(inRoot(item, '/x/root')).toMatchObject({
      changes: [
        { path: 'src/a.ts', kind: 'update' },
        { path: '/x/other/b.ts', kind: 'add' },
      ],
    });
    const translator = new CodexTranslator({ model: 'm', root: '/tmp/b30-repro/exec/agentRoot' });
    const evs = events('failed-patch-turn.jsonl', translator);
    const change = evs.find((e) => e.type === 'assistant.action' && e.data.toolName === 'file_change');
    expect(change?.type === 'assistant.action' && change.data.toolInput).toEqual({
      path: 'f.txt',
      changes: [{ path: 'f.txt', kind: 'add' }],
    });
    const result = evs.find((e) => e.type === 'tool.result' && e.data.toolName === 'file_change');
    expect(result?.type === 'tool.result' && result.data.result).toBe('add f.txt');
  });
});
