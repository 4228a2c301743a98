/**
 * Bounded capture of a command's output: keeps the first and last halves of `limit` characters and
 * counts what fell between, so a chatty command cannot exhaust memory or the model's context.
 */
export type OutputCap = { add(text: string): void; text(): string };

export function createOutputCap(limit: number): OutputCap {
  const half = Math.floor(limit / 2);
  let head = '';
  let tail = '';
  let dropped = 0;
  return {
    add(text) {
      if (head.length < half) {
        const room = half - head.length;
        head += text.slice(0, room);
        text = text.slice(room);
      }
      if (text === '') return;
      const joined = tail + text;
      const excess = joined.length - (limit - half);
      if (excess > 0) dropped += excess;
      tail = excess > 0 ? joined.slice(excess) : joined;
    },
    text() {
      return dropped > 0 ? `${head}\n... [${dropped} characters omitted] ...\n${tail}` : head + tail;
    },
  };
}
