import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';
import { rolloutFile } from './codex-session.ts';

/** A tool call Codex recorded as failed whose run its `exec --json` stream never reported. */
export type RecordedFailure = {
  callId: string;
  name: string;
  input: Record<string, unknown>;
  error: string;
};

const Call = z.looseObject({
  type: z.literal('response_item'),
  payload: z.union([
    z.looseObject({
      type: z.literal('function_call'),
      call_id: z.string(),
      name: z.string(),
      arguments: z.string().default(''),
    }),
    z.looseObject({
      type: z.literal('custom_tool_call'),
      call_id: z.string(),
      name: z.string(),
      input: z.string().default(''),
    }),
  ]),
});

const OutputText = z.union([
  z.string(),
  z.array(z.looseObject({ text: z.string().optional() })).transform((parts) =>
    parts
      .map((p) => p.text ?? '')
      .filter((t) => t !== '')
      .join('\n'),
  ),
  z.looseObject({ content: z.string() }).transform((o) => o.content),
]);

const Output = z.looseObject({
  type: z.literal('response_item'),
  payload: z.looseObject({
    type: z.enum(['function_call_output', 'custom_tool_call_output']),
    call_id: z.string(),
    output: OutputText,
  }),
});

/** A command Codex stopped waiting for, still running, as it recorded it (the output it gave the model). */
export type RecordedWait = {
  callId: string;
  /** The command as the model asked for it (exec_command's `cmd`). */
  command: string | undefined;
  /** How long Codex waited, in seconds (its `Wall time`). */
  seconds: number | undefined;
  /** Codex's own words for it: `Process running with session ID 8293`. */
  said: string;
};

/** An item event of Codex's own: the calls it ran (commands, patches, MCP calls) are items by their call id. */
const ItemEvent = z.looseObject({
  type: z.literal('event_msg'),
  payload: z.looseObject({
    type: z.enum(['item_started', 'item_completed']),
    item: z.looseObject({ id: z.string() }),
  }),
});

/**
 * How Codex words a call it refused or could not run, in the output it gives the model (the first
 * line): `apply_patch verification failed: ...`, `unsupported call: ...`, `failed to parse function
 * arguments: ...`, `Script failed` (code mode).
 */
const FAILURE = /^(?:[\w ]*\bfailed\b|unsupported\b|error\b)/i;

/** Codex's words for a command it stopped waiting for, and how long it waited. */
const RUNNING = /^Process running with session ID \S+$/m;
const WALL_TIME = /^Wall time: (\d+(?:\.\d+)?) seconds$/m;

/**
 * The tool calls of a Codex rollout (`sessions/.../rollout-*.jsonl`) that failed without an item of
 * their own, line by line. Codex prints an item for each call it runs (a command, a patch it
 * applies, an MCP call), and records the same item under the call's id; a call refused before it
 * ran (a patch whose context lines are not in the file, an unknown tool, arguments it cannot parse)
 * has none, and the `exec --json` stream says nothing of it: only the rollout holds its error.
 * It also keeps what Codex said of each command it stopped waiting for (still running). Calls
 * recorded before this run (`earlier`: a resumed or forked session's) are not this run's. Pure.
 */
export class RecordedCalls {
  readonly #calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  readonly #itemIds = new Set<string>();
  readonly #earlier: ReadonlySet<string>;
  #pending: RecordedFailure[] = [];
  readonly #waits: RecordedWait[] = [];

  constructor(earlier: ReadonlySet<string> = new Set()) {
    this.#earlier = earlier;
  }

  /** Reads one rollout line; lines of other kinds, and torn ones, are skipped. */
  line(text: string): void {
    if (!text.includes('call') && !text.includes('"item_')) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return;
    }
    const item = ItemEvent.safeParse(json);
    if (item.success) {
      this.#itemIds.add(item.data.payload.item.id);
      return;
    }
    const call = Call.safeParse(json);
    if (call.success) {
      const p = call.data.payload;
      const input = p.type === 'function_call' ? argumentsOf(p.arguments) : patchInput(p.name, p.input);
      this.#calls.set(p.call_id, { name: p.name, input });
      return;
    }
    const output = Output.safeParse(json);
    if (!output.success) return;
    const { call_id: callId, output: said } = output.data.payload;
    const called = this.#calls.get(callId);
    if (!called || this.#earlier.has(callId)) return;
    const running = RUNNING.exec(said);
    if (running) {
      const seconds = WALL_TIME.exec(said)?.[1];
      const cmd = called.input.cmd;
      this.#waits.push({
        callId,
        command: typeof cmd === 'string' ? cmd : undefined,
        seconds: seconds === undefined ? undefined : Number(seconds),
        said: running[0],
      });
    }
    if (this.#itemIds.has(callId)) return;
    if (!FAILURE.test(said.split('\n', 1)[0] ?? '')) return;
    this.#pending.push({ callId, ...called, error: said });
  }

  /** The failures read since the last call, but those whose call has an item after all. */
  take(): RecordedFailure[] {
    const out = this.#pending.filter((f) => !this.#itemIds.has(f.callId));
    this.#pending = [];
    return out;
  }

  /** The commands Codex stopped waiting for so far, in the order it did. */
  waits(): readonly RecordedWait[] {
    return this.#waits;
  }

  /** The ids of every call read (what a later run of the session must not report again). */
  callIds(): Set<string> {
    return new Set(this.#calls.keys());
  }
}

/**
 * The session's rollout read as it grows: each `read()` reads the lines written since the last, and
 * returns the failures among them; `waits()` the commands Codex stopped waiting for (RecordedCalls).
 * No file yet (Codex writes it once the session starts): none.
 */
export class RolloutRecord {
  readonly #home: string;
  readonly #calls: RecordedCalls;
  #file: string | undefined;
  #offset = 0;

  constructor(home: string, earlier?: ReadonlySet<string>) {
    this.#home = home;
    this.#calls = new RecordedCalls(earlier);
  }

  read(sessionId: string): RecordedFailure[] {
    this.#file ??= rolloutFile(this.#home, sessionId);
    if (!this.#file) return [];
    const text = readFrom(this.#file, this.#offset, (bytes) => {
      this.#offset += bytes;
    });
    for (const line of text.split('\n')) if (line) this.#calls.line(line);
    return this.#calls.take();
  }

  /** The commands Codex stopped waiting for, as far as read. */
  waits(): readonly RecordedWait[] {
    return this.#calls.waits();
  }
}

/** The ids of every tool call in session `sessionId`'s rollout under `home` (none without one). */
export function recordedCallIds(home: string, sessionId: string): Set<string> {
  const file = rolloutFile(home, sessionId);
  const calls = new RecordedCalls();
  if (file) for (const line of readFrom(file, 0, () => {}).split('\n')) calls.line(line);
  return calls.callIds();
}

function readFrom(file: string, offset: number, advance: (bytes: number) => void): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    if (size <= offset) return '';
    const buffer = Buffer.alloc(size - offset);
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    // Whole lines only: a multibyte character torn at the end waits for the next read.
    const end = buffer.lastIndexOf(0x0a, read - 1);
    if (end < 0) return '';
    advance(end + 1);
    return buffer.subarray(0, end + 1).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function argumentsOf(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // Arguments it could not parse either: shown as they came.
  }
  return { arguments: text };
}

/** A freeform call's input; a patch's with the first file it names, as views show a file tool's. */
function patchInput(name: string, input: string): Record<string, unknown> {
  const path =
    name === 'apply_patch' ? /^\*\*\* (?:Add|Update|Delete) File: (.+)$/m.exec(input)?.[1] : undefined;
  return { ...(path ? { path: path.trim() } : {}), input };
}
