import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ProcessExit } from '../protocol/index.ts';
import type { AgentRun } from './agent-adapter.ts';
import { killTree } from './process-tree.ts';
import { parseStreamLine, type StreamLine } from './stream-line.ts';

export type SpawnSpec = {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. */
  stdin: string;
};

/**
 * Starts an agent process in its own process group and reads its stream-json stdout line by line.
 * Non-JSON stdout lines and stderr go to the stderr listeners (for the log).
 */
export function spawnAgent(spec: SpawnSpec): AgentRun {
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderrListeners: Array<(text: string) => void> = [];
  const emitStderr = (text: string) => {
    for (const l of stderrListeners) l(text);
  };
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', emitStderr);
  child.stdin.on('error', () => {
    // The agent may exit before reading its prompt; its exit status tells the story.
  });
  child.stdin.end(spec.stdin);

  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('error', (error) => {
      emitStderr(`could not start ${spec.command}: ${error.message}`);
      resolve({ type: 'error', code: 127 });
    });
    child.once('close', (code, signal) => {
      if (signal) resolve({ type: 'killed', signal });
      else resolve(code === 0 ? { type: 'success' } : { type: 'error', code: code ?? 1 });
    });
  });

  async function* lines(): AsyncGenerator<StreamLine> {
    const reader = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const text of reader) {
      if (text.trim() === '') continue;
      const parsed = parseStreamLine(text);
      if (parsed.ok) yield parsed.line;
      else emitStderr(`[stdout, not stream-json] ${text.slice(0, 500)}`);
    }
  }

  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid ?? -1,
    lines: lines(),
    onStderr: (listener) => {
      stderrListeners.push(listener);
    },
    exited,
    stop(graceMs) {
      if (child.pid === undefined) return Promise.resolve();
      stopping ??= killTree(child.pid, graceMs);
      return stopping;
    },
  };
}
