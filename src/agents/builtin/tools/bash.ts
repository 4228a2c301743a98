/**
 * Bash: run `bash -c COMMAND` in the agent root, with the agent's environment (as Claude Code's Bash
 * tool does: the engine's mark of the agent run reaches every command, so what a command leaves
 * running is found and ended with the run, even if it left the group). The shell leads a process
 * group of its own, which is killed on timeout, on abort, and once the shell exits: a command's
 * background children in the group do not outlive it.
 */
import { z } from 'zod';
import { spawnSafely } from '../../../platform/processes/spawn-safely.ts';
import { createOutputCap } from './output-cap.ts';
import { defineTool, failure, ok, type ToolOutcome } from './tool.ts';

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
const OUTPUT_LIMIT = 30_000;
/** After the shell exits, how long to wait for output still in flight. */
const DRAIN_MS = 200;

export const BashInput = z.strictObject({
  command: z.string().min(1).describe('The command, run with bash -c in the agent root'),
  timeout: z
    .number()
    .int()
    .positive()
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS})`),
  description: z.string().optional().describe('A few words saying what the command does'),
});

export const bashTool = defineTool({
  name: 'Bash',
  description:
    'Run a bash command with the agent root as working directory; stdout and stderr are returned together ' +
    `(at most ${OUTPUT_LIMIT} characters). A non-zero exit status is reported as an error.`,
  input: BashInput,
  run: (input, { root, signal }) =>
    runCommand(input.command, root, input.timeout ?? DEFAULT_TIMEOUT_MS, signal),
});

export function runCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ToolOutcome> {
  return new Promise((resolveOutcome) => {
    const output = createOutputCap(OUTPUT_LIMIT);
    const started = spawnSafely('bash', ['-c', command], {
      cwd,
      env: process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (!started.ok) {
      // Out of file descriptors, a missing root: an error result the model can read, not a crash.
      void started.why.then((why) => resolveOutcome(failure(`Cannot run bash: ${why}`)));
      return;
    }
    const { child } = started;
    let ending: 'timeout' | 'aborted' | null = null;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    };
    const stop = (why: 'timeout' | 'aborted') => {
      ending ??= why;
      killGroup();
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    const onAbort = () => stop('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    child.stdout?.setEncoding('utf8').on('data', (text: string) => output.add(text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => output.add(text));

    let settled = false;
    const finish = (outcome: ToolOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolveOutcome(outcome);
    };
    const report = (code: number | null, sig: NodeJS.Signals | null) => {
      const text = output.text().replace(/\s+$/, '');
      if (ending === 'timeout')
        return finish(failure(`Command timed out after ${timeoutMs} ms\n${text}`.trimEnd()));
      if (ending === 'aborted') return finish(failure(`Command was aborted\n${text}`.trimEnd()));
      if (code === 0) return finish(ok(text === '' ? '(Bash completed with no output)' : text));
      const status = code === null ? `Killed by ${sig}` : `Exit code ${code}`;
      return finish(failure(`${status}\n${text}`.trimEnd()));
    };

    child.on('close', report);
    child.on('exit', (code, sig) => {
      killGroup();
      // A child that left the group (setsid) may still hold the pipes: do not wait for it.
      setTimeout(() => report(code, sig), DRAIN_MS).unref();
    });
  });
}
