import type { MessageBacklog } from './agent-adapter.ts';
import type { StreamLine } from './stream-line.ts';

/** How the prompt reaches the agent: plain text on stdin (then closed), or stream-json user messages. */
export type InputFormat = 'text' | 'stream-json';

/**
 * How long the agent may stay quiet after a `result` without taking up the messages still pending
 * before its input is closed anyway (see AgentInput).
 */
export const UNTAKEN_QUIET_MS = 5000;

/**
 * The content of one stream-json user message holding `text`. Claude Code runs a user message whose
 * last text block starts with `/` as one of its own commands (`/clear` swaps its session, `/cost`
 * prints figures) when it takes it up between turns, and never prints it back. Such a text gets an
 * empty text block after it: Claude Code then reads the message as text, and drops the empty block
 * from what the model gets (checked with 2.1.197; the built-in agent drops it too).
 */
export function messageContent(text: string): Array<{ type: 'text'; text: string }> {
  const content = [{ type: 'text' as const, text }];
  if (text.trimStart().startsWith('/')) content.push({ type: 'text', text: '' });
  return content;
}

/**
 * One user message of stream-json input, as Claude Code 2.1 reads it with `--input-format
 * stream-json` (and the built-in agent too). A message (`asText`) is always text for the model; the
 * prompt is written as it is.
 */
export function userMessageLine(text: string, asText = false): string {
  const content = asText ? messageContent(text) : [{ type: 'text', text }];
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content } })}\n`;
}

/** A user line the agent printed back for a message it took up (`--replay-user-messages`). */
export function isReplay(line: StreamLine): boolean {
  return line.type === 'user' && line.isReplay === true;
}

/** The texts of a replayed user line: its non-empty text blocks, in order. */
function replayedTexts(line: StreamLine): string[] {
  if (line.type !== 'user') return [];
  const { content } = line.message;
  if (typeof content === 'string') return [content];
  return content.flatMap((block) =>
    block.type === 'text' && 'text' in block && typeof block.text === 'string' && block.text !== ''
      ? [block.text]
      : [],
  );
}

/**
 * Which of the `pending` messages (oldest first) one replay takes up, by index: Claude Code prints
 * several messages it takes up together as one replay holding each one's text blocks, so every pending
 * text found in the replay's text, in order, is taken. One the agent never printed back (it ran it as a
 * command of its own) is skipped and stays pending. When no text matches (the agent printed it back
 * changed), the oldest is taken: one replay is at least one message.
 */
export function takenUp(pending: readonly string[], replayed: readonly string[]): number[] {
  if (pending.length === 0) return [];
  const text = replayed.join('\n');
  const taken: number[] = [];
  let from = 0;
  pending.forEach((message, index) => {
    if (message === '') return;
    const at = text.indexOf(message, from);
    if (at < 0) return;
    taken.push(index);
    from = at + message.length;
  });
  return taken.length > 0 ? taken : [0];
}

/**
 * Why messages were left: the agent stayed quiet after its answer without taking them up, or it
 * failed before its first turn (an error result before it took its prompt up) and took nothing up.
 */
export type UntakenWhy = 'quiet' | 'failed-first';

export type AgentInputIo = {
  write(line: string): void;
  end(): void;
  /** These messages were never taken up, and the agent's input was closed (`why`). */
  untaken?(texts: readonly string[], why: UntakenWhy): void;
};

/**
 * An agent's stdin, and where its turns stand. In `text` the prompt is written and stdin closed. In
 * `stream-json` the prompt is the first message and stdin stays open for more (`send`): a message
 * is pending from its write until the agent prints it back (its replay) as it takes it up, either
 * into the running turn's next request or as a new turn after its result. A `result` line ends a
 * turn: with nothing pending stdin is closed, so the agent exits; with a message pending it stays
 * open, since the agent starts another turn with it. Should the agent not take it up (no replay)
 * and its output stay quiet for `quietMs` after the result, stdin is closed all the same and
 * `untaken` says which messages were left: no quirk of an agent CLI keeps a codon running forever.
 * The prompt is never one of them: a result ends the turn it started, whether the agent printed it
 * back or not (Claude Code runs a prompt starting with `/` as a command of its own and does not).
 * An error result while the prompt is still pending is a run that failed before its first turn (an
 * MCP server that could not start): stdin is closed at once, and messages sent meanwhile are said.
 */
export class AgentInput {
  readonly #io: AgentInputIo;
  readonly #quietMs: number;
  #open: boolean;
  /** The texts written and not yet printed back, oldest first (`message`: not the prompt). */
  #pending: Array<{ text: string; message: boolean }> = [];
  #inTurn = true;
  /** Set between a result with messages pending and the agent taking one up (or its quiet period). */
  #untakenTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(format: InputFormat, prompt: string, io: AgentInputIo, options: { quietMs?: number } = {}) {
    this.#io = io;
    this.#quietMs = options.quietMs ?? UNTAKEN_QUIET_MS;
    this.#open = format === 'stream-json';
    if (this.#open) this.#writeMessage(prompt, false);
    else {
      io.write(prompt);
      io.end();
    }
  }

  get inTurn(): boolean {
    return this.#inTurn;
  }

  /** The messages written and not yet taken up (the prompt is none of them). */
  get backlog(): MessageBacklog {
    let count = 0;
    let bytes = 0;
    for (const p of this.#pending) {
      if (!p.message) continue;
      count += 1;
      bytes += Buffer.byteLength(p.text);
    }
    return { count, bytes };
  }

  /** False once the agent takes no more input; the message is not written then. */
  send(text: string): boolean {
    if (!this.#open) return false;
    this.#writeMessage(text, true);
    // Between turns, a new message is something new to take up: the quiet period starts again.
    if (this.#untakenTimer) this.#armUntaken();
    return true;
  }

  /** Follows the agent's output: replays take up pending messages, a result ends the turn. */
  seen(line: StreamLine): void {
    if (isReplay(line)) {
      const taken = new Set(
        takenUp(
          this.#pending.map((p) => p.text),
          replayedTexts(line),
        ),
      );
      this.#pending = this.#pending.filter((_, index) => !taken.has(index));
      this.#inTurn = true;
      this.#disarmUntaken();
    } else if (line.type === 'result') {
      this.#inTurn = false;
      const promptPending = this.#pending.some((p) => !p.message);
      this.#pending = this.#pending.filter((p) => p.message);
      if (promptPending && line.is_error) this.#giveUp('failed-first');
      else if (this.#pending.length === 0) this.#close();
      else this.#armUntaken();
    } else if (this.#untakenTimer) this.#armUntaken();
  }

  /** The agent's output ended (it exited): nothing more can be sent. */
  ended(): void {
    this.#inTurn = false;
    this.#open = false;
    this.#disarmUntaken();
    this.#pending = [];
  }

  #writeMessage(text: string, asText: boolean): void {
    this.#pending.push({ text, message: asText });
    this.#io.write(userMessageLine(text, asText));
  }

  /** (Re)starts the quiet period after which the pending messages count as not taken up. */
  #armUntaken(): void {
    this.#disarmUntaken();
    this.#untakenTimer = setTimeout(() => {
      this.#untakenTimer = undefined;
      if (this.#open && this.#pending.length > 0) this.#giveUp('quiet');
    }, this.#quietMs);
    this.#untakenTimer.unref?.();
  }

  /** Closes stdin; the messages still pending, if any, are said as never taken up. */
  #giveUp(why: UntakenWhy): void {
    const untaken = this.#pending.map((p) => p.text);
    this.#pending = [];
    this.#close();
    if (untaken.length > 0) this.#io.untaken?.(untaken, why);
  }

  #disarmUntaken(): void {
    if (this.#untakenTimer) clearTimeout(this.#untakenTimer);
    this.#untakenTimer = undefined;
  }

  #close(): void {
    this.#disarmUntaken();
    if (!this.#open) return;
    this.#open = false;
    this.#io.end();
  }
}
