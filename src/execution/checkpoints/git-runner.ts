import { spawnSafely } from '../../platform/processes/spawn-safely.ts';
import { type CheckpointErrorCode, fail } from './errors.ts';

export type GitOutput = {
  /** Exit code; -1 when git could not be started or was killed. */
  code: number;
  stdout: Buffer;
  stderr: string;
  /** Why git did not run (ENOENT, EMFILE, a timeout); absent when it ran. */
  spawnError?: string;
  /** stdout passed `maxStdoutBytes`: it holds the first that many bytes, and git was stopped. */
  truncated?: boolean;
};

export type GitRun = (
  args: readonly string[],
  options?: { input?: Buffer | string; maxStdoutBytes?: number },
) => Promise<GitOutput>;

// stderr is for messages; a pathological flood must not fill memory.
const STDERR_LIMIT = 64 * 1024;

/** Runs git with a fixed environment and working directory; never throws, never uses a shell. */
export function gitRunner(options: {
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
  gitBinary?: string;
}): GitRun {
  return (args, { input, maxStdoutBytes = Number.POSITIVE_INFINITY } = {}) =>
    new Promise((resolve) => {
      const started = spawnSafely(options.gitBinary ?? 'git', args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        timeout: options.timeoutMs,
      });
      if (!started.ok) {
        // Out of file descriptors, git missing: a failed command with the reason, never a crash.
        void started.why.then((why) =>
          resolve({ code: -1, stdout: Buffer.alloc(0), stderr: '', spawnError: why }),
        );
        return;
      }
      const { child } = started;
      const out: Buffer[] = [];
      let outBytes = 0;
      let truncated = false;
      let stderr = '';
      let spawnError: string | undefined;
      child.on('error', (error: NodeJS.ErrnoException) => {
        spawnError = error.code ?? error.message;
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        if (truncated) return;
        if (outBytes + chunk.length <= maxStdoutBytes) {
          out.push(chunk);
          outBytes += chunk.length;
          return;
        }
        // Past the cap: keep what fits and stop reading; git has nothing more to tell us.
        out.push(chunk.subarray(0, maxStdoutBytes - outBytes));
        outBytes = maxStdoutBytes;
        truncated = true;
        child.stdout?.destroy();
        child.kill('SIGKILL');
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
      });
      // git may exit before reading all its input (e.g. on a fatal error): that is not our failure.
      child.stdin?.on('error', () => {});
      child.stdin?.end(input);
      child.on('close', (code, signal) => {
        if (truncated) {
          resolve({ code: 0, stdout: Buffer.concat(out), stderr: stderr.trim(), truncated });
          return;
        }
        if (signal && !spawnError)
          spawnError = signal === 'SIGTERM' ? `timed out after ${options.timeoutMs} ms` : signal;
        resolve({
          code: code ?? -1,
          stdout: Buffer.concat(out),
          stderr: stderr.trim(),
          ...(spawnError ? { spawnError } : {}),
        });
      });
    });
}

/** An error value for a git command that failed, with git's own words: they name the file or lock. */
export function gitFailure(what: string, output: GitOutput, code: CheckpointErrorCode = 'CHECKPOINT_FAILED') {
  const detail = output.spawnError ?? (output.stderr || `exit code ${output.code}`);
  return fail(code, `Could not ${what}: ${detail}`);
}
