import { z } from 'zod';
import { ours } from './extension.ts';
import { MESSAGE_MAX_BYTES } from './message-size.ts';

export { fitMessage, MESSAGE_MAX_BYTES } from './message-size.ts';

/** Who sent a message to the running agent: a client (by its clientId) or a sentinel's action. */
export const MessageSender = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('client'), clientId: z.string() }),
  z.object({ kind: z.literal('sentinel'), sentinelId: z.string() }),
]);
export type MessageSender = z.infer<typeof MessageSender>;

/**
 * How the text reached the agent: `live` written while its turn ran (its next request carries it,
 * or, when the turn makes no more, a new turn after its result), `next-turn` written after its
 * result, starting another turn, `prompt` added to a codon's prompt (a redo's text, or what a crash
 * carried over to the codon's next run).
 */
export const MessageDelivery = z.enum(['live', 'next-turn', 'prompt']);
export type MessageDelivery = z.infer<typeof MessageDelivery>;

/**
 * What a message to the agent may hold, from a client or a sentinel: something besides white space
 * (an agent takes nothing from blanks, and the built-in one answers nothing to them), at most
 * MESSAGE_MAX_BYTES of UTF-8.
 */
export const MessageText = z
  .string()
  .min(1, 'must not be empty')
  // Characters first (a UTF-8 byte count is never below it), then the bytes themselves.
  .max(MESSAGE_MAX_BYTES, { abort: true, error: `at most ${MESSAGE_MAX_BYTES} bytes of UTF-8` })
  .refine((text) => text.trim() !== '', 'must hold more than white space')
  .refine(
    (text) => new TextEncoder().encode(text).length <= MESSAGE_MAX_BYTES,
    `at most ${MESSAGE_MAX_BYTES} bytes of UTF-8`,
  );

export const CodonMessageRequest = ours(
  z.object({ text: MessageText }),
  "A message to the running codon's agent (docs/steering.md); answered by the codon.message event.",
);

export const CodonMessageData = ours(
  z.object({
    codonId: z.string(),
    text: z.string(),
    from: MessageSender,
    delivery: MessageDelivery,
  }),
  "A message handed to the running codon's agent, by a client or a sentinel's action.",
);
