/** fetch + SSE helpers for the scripted provider's HTTP tests. */
import { createSseParser } from '../../../src/llm/sse-parser.ts';

export type Frame = { event: string; data: Record<string, unknown> };

export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Every SSE event of a finished stream, its data parsed as JSON. */
export async function framesOf(res: Response): Promise<Frame[]> {
  const parser = createSseParser();
  const events = parser.feed(await res.text());
  return events.map((event) => ({ event: event.event, data: JSON.parse(event.data) }));
}

/** Reads a stream until `count` events arrived; the rest of the body is left unread. */
export async function firstFrames(
  res: Response,
  count: number,
): Promise<{ frames: Frame[]; rest: Promise<unknown> }> {
  const reader = res.body?.getReader();
  if (!reader) throw new Error('no body');
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const frames: Frame[] = [];
  while (frames.length < count) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended after ${frames.length} events`);
    for (const event of parser.feed(decoder.decode(value, { stream: true }))) {
      frames.push({ event: event.event, data: JSON.parse(event.data) });
    }
  }
  // Settles when the stream ends or breaks (done: true / an error), never while it stalls.
  const rest = reader.read().then(
    (chunk) => (chunk.done ? 'ended' : 'more'),
    () => 'broken',
  );
  return { frames, rest };
}
