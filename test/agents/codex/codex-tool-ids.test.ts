/**
 * Codex numbers its `exec --json` items from `item_0` again in every process: a follow-up turn (a
 * message, by `codex exec resume` in the same thread) and a re-run after a crash (a new thread) print
 * the same item ids as the run before. The `toolUseId` Ribosome gives each call must still be one
 * call's only (issue 30 trial, low): a client pairing results by id alone pairs them right.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexTranslator } from '../../../src/agents/codex/codex-translator.ts';
import { StreamMapper } from '../../../src/engine/stream-mapper.ts';

const THREAD = '01a219c1-cb4f-7e22-b4ee-5397b726f260';
/** tool-turn.jsonl (real codex-cli 0.171 output): a failing `ls` (item_1), an added file (item_2). */
const turn = readFileSync(join(import.meta.dirname, '../fixtures/codex/tool-turn.jsonl'), 'utf8');

type Call = { action: 'call' | 'result'; id: string; tool: string; isError?: boolean };

/** The tool events of one Codex process's output, as the journal holds them. */
function calls(output: string, run: number): Call[] {
  const translator = new CodexTranslator({ model: 'gpt-5.5', run });
  const mapper = new StreamMapper({ codonId: 'c', maxResultChars: 1000, costReported: false });
  const lines = output.split('\n').flatMap((text) => {
    if (text.trim() === '') return [];
    const parsed = translator.line(text);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.lines;
  });
  return [...lines, ...translator.end()]
    .flatMap((l) => mapper.map(l))
    .flatMap((o): Call[] => {
      if (o.kind !== 'event') return [];
      const e = o.event;
      if (e.type === 'assistant.action' && e.data.action === 'tool_use')
        return [{ action: 'call', id: e.data.toolUseId ?? '', tool: e.data.toolName ?? '' }];
      if (e.type === 'tool.result')
        return [{ action: 'result', id: e.data.toolUseId, tool: e.data.toolName, isError: e.data.isError }];
      return [];
    });
}

/** Each result given to the open call with its id, as a client pairing by id alone does. */
function pairById(events: Call[]): Map<Call, Call> {
  const open: Call[] = [];
  const pairs = new Map<Call, Call>();
  for (const e of events) {
    if (e.action === 'call') open.push(e);
    else {
      const at = open.findIndex((c) => c.id === e.id);
      if (at !== -1) pairs.set(open.splice(at, 1)[0] as Call, e);
    }
  }
  return pairs;
}

describe("Codex tool calls' ids are unique within the execution", () => {
  it('a follow-up turn in the same thread (run 2) gives ids of its own; each result keeps its call’s', () => {
    const first = calls(turn, 1);
    const followUp = calls(turn, 2);
    expect(first.map((e) => [e.action, e.id])).toEqual([
      ['call', `${THREAD}:1:item_1`],
      ['result', `${THREAD}:1:item_1`],
      ['call', `${THREAD}:1:item_2`],
      ['result', `${THREAD}:1:item_2`],
    ]);
    expect(followUp.map((e) => e.id)).toEqual([
      `${THREAD}:2:item_1`,
      `${THREAD}:2:item_1`,
      `${THREAD}:2:item_2`,
      `${THREAD}:2:item_2`,
    ]);
    // The first turn's `ls` left open (its result not yet read): the follow-up's result is not its.
    const pairs = pairById([first[0] as Call, ...followUp]);
    expect(pairs.has(first[0] as Call)).toBe(false);
    expect(pairs.size).toBe(2);
  });

  it('a crashed attempt left its command open; its re-run (a new thread) runs the same items: each result pairs with its own call', () => {
    // The crashed process printed the command's start and was killed: its call stays open.
    const crashed = calls(turn.split('\n').slice(0, 4).join('\n'), 1).filter((e) => e.action === 'call');
    expect(crashed).toEqual([{ action: 'call', id: `${THREAD}:1:item_1`, tool: 'command_execution' }]);
    const rerun = calls(turn.replaceAll(THREAD, '01a21a00-0000-7000-8000-000000000002'), 1);
    const pairs = pairById([...crashed, ...rerun]);
    // The crashed call gets no result of the re-run: the re-run's `ls` and file change get theirs.
    expect(pairs.has(crashed[0] as Call)).toBe(false);
    expect([...pairs].map(([call, result]) => [call.tool, result.tool, result.isError])).toEqual([
      ['command_execution', 'command_execution', true],
      ['file_change', 'file_change', false],
    ]);
  });
});
