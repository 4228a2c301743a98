import type { StreamLine } from '../../agents/stream-line.ts';

/**
 * Stall detection (docs/unattended.md#stall-detection): an agent that prints nothing for `limitMs` is stalled.
 * Output is any stdout line (stream-json or not) and any stderr text. While a tool call is open (the
 * agent printed a tool_use and not yet its tool_result) the agent is silent by design, a long Bash
 * build for instance: the clock does not run then; such a tool is bounded by its own timeout (Bash:
 * 10 minutes at most, in both agents) and by the codon's wall clock `timeoutMs`.
 */
export class StallWatch {
  readonly #limitMs: number;
  readonly #onStall: () => void;
  readonly #open = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #done = false;

  constructor(limitMs: number, onStall: () => void) {
    this.#limitMs = limitMs;
    this.#onStall = onStall;
    this.#arm();
  }

  /** The agent printed something: a parsed line (tool calls tracked) or other output. */
  seen(line?: StreamLine): void {
    if (this.#done) return;
    if (line) trackTools(this.#open, line);
    this.#arm();
  }

  /** Tool calls printed and not yet answered. */
  get openTools(): number {
    return this.#open.size;
  }

  stop(): void {
    this.#done = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    if (this.#open.size > 0) return;
    this.#timer = setTimeout(() => {
      this.#done = true;
      this.#onStall();
    }, this.#limitMs);
    this.#timer.unref();
  }
}

/** Opens a tool call on its tool_use block, closes it on its tool_result. Pure but for `open`. */
export function trackTools(open: Set<string>, line: StreamLine): void {
  if (line.type === 'assistant') {
    for (const block of line.message.content)
      if (block.type === 'tool_use' && 'id' in block && typeof block.id === 'string') open.add(block.id);
  } else if (line.type === 'user' && typeof line.message.content !== 'string') {
    for (const block of line.message.content)
      if (block.type === 'tool_result' && 'tool_use_id' in block && typeof block.tool_use_id === 'string')
        open.delete(block.tool_use_id);
  } else if (line.type === 'result') open.clear();
}
