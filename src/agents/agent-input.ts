import type { StreamLine } from './stream-line.ts';

/** How the prompt reaches the agent: plain text on stdin (then closed), or stream-json user messages. */
export type InputFormat = 'text' | 'stream-json';

/**
 * One user message of stream-json input, as Claude Code 2.1 reads it with `--input-format
 * stream-json` (and the built-in agent too).
 */
export function userMessageLine(text: string): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } })}\n`;
}

/** A user line the agent printed back for a message it took up (`--replay-user-messages`). */
export function isReplay(line: StreamLine): boolean {
  return line.type === 'user' && line.isReplay === true;
}

/**
 * An agent's stdin, and where its turns stand. In `text` the prompt is written and stdin closed. In
 * `stream-json` the prompt is the first message and stdin stays open for more (`send`): a message
 * is pending from its write until the agent prints it back (its replay) as it takes it up, either
 * into the running turn's next request or as a new turn after its result. A `result` line ends a
 * turn: with nothing pending stdin is closed, so the agent exits; with a message pending it stays
 * open, since the agent starts another turn with it.
 */
export class AgentInput {
  readonly #write: (line: string) => void;
  readonly #end: () => void;
  #open: boolean;
  #pending = 0;
  #inTurn = true;

  constructor(format: InputFormat, prompt: string, io: { write(line: string): void; end(): void }) {
    this.#write = io.write;
    this.#end = io.end;
    this.#open = format === 'stream-json';
    if (this.#open) this.#writeMessage(prompt);
    else {
      io.write(prompt);
      io.end();
    }
  }

  get inTurn(): boolean {
    return this.#inTurn;
  }

  /** False once the agent takes no more input; the message is not written then. */
  send(text: string): boolean {
    if (!this.#open) return false;
    this.#writeMessage(text);
    return true;
  }

  /** Follows the agent's output: replays take up pending messages, a result ends the turn. */
  seen(line: StreamLine): void {
    if (isReplay(line)) {
      this.#pending = Math.max(0, this.#pending - 1);
      this.#inTurn = true;
    } else if (line.type === 'result') {
      this.#inTurn = false;
      if (this.#pending === 0) this.#close();
    }
  }

  /** The agent's output ended (it exited): nothing more can be sent. */
  ended(): void {
    this.#inTurn = false;
    this.#open = false;
  }

  #writeMessage(text: string): void {
    this.#pending += 1;
    this.#write(userMessageLine(text));
  }

  #close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#end();
  }
}
