/**
 * The built-in agent's stream-json input (`--input-format stream-json`): one user message per line,
 * the shape Claude Code reads. The first is the prompt; the loop takes later ones between requests.
 */
import { z } from 'zod';
import { parseJsonLine } from '../json-line.ts';

const UserMessageLine = z.looseObject({
  type: z.literal('user'),
  message: z.looseObject({
    role: z.literal('user'),
    content: z.union([
      z.string(),
      z.array(z.union([z.looseObject({ type: z.literal('text'), text: z.string() }), z.looseObject({})])),
    ]),
  }),
});

/** The text of one input line, or why it is not a user message. */
export function parseInputLine(line: string): { ok: true; text: string } | { ok: false; error: string } {
  const parsed = parseJsonLine(line, UserMessageLine);
  if (!parsed.ok) {
    return { ok: false, error: parsed.json === undefined ? parsed.error : 'not a stream-json user message' };
  }
  const { content } = parsed.value.message;
  const text =
    typeof content === 'string'
      ? content
      : content
          // An empty block adds nothing (Claude Code drops it too; Ribosome adds one after a text
          // starting with `/`, see agent-input messageContent).
          .flatMap((block) =>
            'text' in block && typeof block.text === 'string' && block.text !== '' ? [block.text] : [],
          )
          .join('\n');
  return text.trim() === '' ? { ok: false, error: 'the message has no text' } : { ok: true, text };
}

export type Inbox = {
  /** Every message that arrived and was not taken yet, oldest first. */
  take(): string[];
  /** Waits for a message (resolves at once when one is there); false once input ended or `signal` aborted. */
  wait(signal: AbortSignal): Promise<boolean>;
};

/** Collects the messages of `lines` as they arrive; lines that are not user messages go to `onInvalid`. */
export function createInbox(lines: AsyncIterable<string>, onInvalid: (problem: string) => void): Inbox {
  const queue: string[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  void (async () => {
    try {
      for await (const line of lines) {
        if (line.trim() === '') continue;
        const parsed = parseInputLine(line);
        if (parsed.ok) queue.push(parsed.text);
        else onInvalid(`input line ignored (${parsed.error}): ${line.slice(0, 200)}`);
        wake?.();
      }
    } finally {
      ended = true;
      wake?.();
    }
  })();
  return {
    take: () => queue.splice(0),
    async wait(signal) {
      while (queue.length === 0 && !ended && !signal.aborted) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
        wake = undefined;
      }
      return queue.length > 0 && !signal.aborted;
    },
  };
}
