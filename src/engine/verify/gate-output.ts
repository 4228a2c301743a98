/**
 * A gate's output on its way to the journal: cut into `verify.output` chunks of at most CHUNK_CHARS
 * in the order it arrived, at most STREAM_CAP_CHARS streamed per gate (a gate that prints without
 * end must not fill the journal), and its last TAIL_CHARS kept whole for verify.completed, the
 * failureReason and the feedback prompt. Pure: the caller decides when to flush.
 */

export const CHUNK_CHARS = 4 * 1024;
export const STREAM_CAP_CHARS = 64 * 1024;
export const TAIL_CHARS = 4_000;

export type GateStream = 'stdout' | 'stderr';
export type OutputChunk = { stream: GateStream; text: string };

export class GateOutput {
  #pending: OutputChunk | undefined;
  #streamed = 0;
  #total = 0;
  #tail = '';
  #capped: GateStream | undefined;
  #noticed = false;

  /** Takes output as it arrives; returns the chunks that are full. */
  push(stream: GateStream, text: string): OutputChunk[] {
    this.#total += text.length;
    this.#tail = (this.#tail + text).slice(-TAIL_CHARS);
    const out: OutputChunk[] = [];
    // Another stream's output: what was pending goes first, so chunks keep the order of arrival.
    if (this.#pending && this.#pending.stream !== stream) out.push(...this.#take());
    const room = STREAM_CAP_CHARS - this.#streamed - (this.#pending?.text.length ?? 0);
    const kept = text.slice(0, Math.max(0, room));
    if (kept.length < text.length) this.#capped ??= stream;
    if (kept.length > 0) this.#pending = { stream, text: (this.#pending?.text ?? '') + kept };
    while (this.#pending && this.#pending.text.length >= CHUNK_CHARS) {
      const { text: all } = this.#pending;
      out.push({ stream, text: all.slice(0, CHUNK_CHARS) });
      this.#streamed += CHUNK_CHARS;
      this.#pending = all.length > CHUNK_CHARS ? { stream, text: all.slice(CHUNK_CHARS) } : undefined;
    }
    return out;
  }

  /** Whatever is pending, and once the cap was reached, one notice saying the rest is not streamed. */
  flush(): OutputChunk[] {
    const out = this.#take();
    if (this.#capped && !this.#noticed) {
      this.#noticed = true;
      out.push({
        stream: this.#capped,
        text: `\n[ribosome: this gate printed more than ${STREAM_CAP_CHARS} characters; the rest is not streamed, verify.completed carries the output's tail]\n`,
      });
    }
    return out;
  }

  /** The output's last TAIL_CHARS characters, both streams as they came. */
  get tail(): string {
    return this.#tail;
  }

  /** Characters printed in all, streamed or not. */
  get total(): number {
    return this.#total;
  }

  #take(): OutputChunk[] {
    const pending = this.#pending;
    this.#pending = undefined;
    if (!pending) return [];
    this.#streamed += pending.text.length;
    return [pending];
  }
}
