import { closeSync, openSync, writeSync } from 'node:fs';
import type { RunState } from '../model/store/run-state.ts';

/**
 * RIBOSOME_TUI_TRACE=<file>: one line per frame the terminal UI writes, for benchmarks (bench/attach.ts).
 * `<epoch ms> <first|synced|frame> <json>`: `first` is the first frame written, `synced` the first
 * written once the initial history is folded, `frame` every later one; the json says the process's
 * memory and the newest activity entry that frame shows. Off (and free) unless the variable is set.
 */
export type TuiTrace = {
  /** The state being rendered (called from App's render). */
  rendering(state: RunState): void;
  /** Ink has drawn the tree of the last `rendering` (Ink's onRender; it writes it out next). */
  drawn(): void;
  /** Records a frame each time `stdout` is written to. Returns the undo. */
  watch(stdout: NodeJS.WriteStream): () => void;
  close(): void;
};

export function openTrace(path: string | undefined): TuiTrace | undefined {
  if (!path) return undefined;
  const fd = openSync(path, 'a');
  let rendering: RunState | undefined;
  let drawn: RunState | undefined;
  let first = true;
  let synced = false;
  const frame = () => {
    const state = drawn;
    if (!state) return;
    const isSynced = !state.connection.syncing && state.connection.state === 'open';
    const kind = first ? 'first' : isSynced && !synced ? 'synced' : 'frame';
    first = false;
    if (kind === 'synced') synced = true;
    // A first frame that is already synced counts as both.
    const newest = state.activity.at(-1);
    const memory = process.memoryUsage();
    const line = JSON.stringify({
      rssMb: Math.round(memory.rss / 1048576),
      heapMb: Math.round(memory.heapUsed / 1048576),
      heapTotalMb: Math.round(memory.heapTotal / 1048576),
      externalMb: Math.round(memory.external / 1048576),
      maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      activity: state.activity.length,
      dropped: state.activityDropped,
      newest: newest && 'text' in newest ? newest.text.slice(0, 120) : (newest?.kind ?? null),
    });
    const at = (performance.timeOrigin + performance.now()).toFixed(3);
    writeSync(fd, `${at} ${kind} ${line}\n`);
    if (kind === 'first' && isSynced && !synced) {
      synced = true;
      writeSync(fd, `${at} synced ${line}\n`);
    }
  };
  return {
    rendering: (state) => {
      rendering = state;
    },
    drawn: () => {
      drawn = rendering;
    },
    watch: (stdout) => {
      const write = stdout.write;
      stdout.write = function (this: NodeJS.WriteStream, ...args: Parameters<typeof write>) {
        const ok = write.apply(this, args);
        frame();
        return ok;
      } as typeof write;
      return () => {
        stdout.write = write;
      };
    },
    close: () => closeSync(fd),
  };
}
