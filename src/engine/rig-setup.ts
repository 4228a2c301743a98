import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { endMarked, killTree } from '../agents/process-tree.ts';
import type { ResolvedRigStep } from '../plan/index.ts';
import { spawnSafely } from '../processes/spawn-safely.ts';
import { copyStep } from './rig-copy.ts';

export type RigSetupResult =
  | { ok: true; createdDirs: string[] }
  | { ok: false; createdDirs: string[]; step: number; message: string; aborted: boolean };

export type RigSetupOptions = {
  steps: readonly ResolvedRigStep[];
  agentRoot: string;
  executionDir: string;
  /** Progress and command output, for `info` events and the log. */
  onOutput: (message: string) => void;
  defaultTimeoutMs?: number;
  /** Aborting ends the running command (its whole process tree) and stops the setup. */
  signal?: AbortSignal;
  /**
   * Each command's process as it starts and ends, with the mark its processes carry, so a server
   * restarted after a crash can end them all.
   */
  onProcess?: (pid: number, running: boolean, mark: string) => void;
};

const OUTPUT_CAP = 64 * 1024;
/** The environment variable that marks a rig step's processes (see processesWithEnv). */
export const STEP_MARK = 'RIBOSOME_RIG_STEP';

/**
 * Prepares the agent root before a codon's agent starts: copy steps (from the plan's folder into
 * the agent root) and shell commands. A failing step stops the setup unless it allows failure.
 * Directories that did not exist before are reported, so a rollback can remove them even when
 * they are git-ignored (node_modules, build output) and a checkpoint restore would leave them.
 */
export async function runRigSetup(options: RigSetupOptions): Promise<RigSetupResult> {
  const before = new Set(await topLevelDirs(options.agentRoot));
  const created = new Set<string>();
  const finish = async () => {
    for (const dir of await topLevelDirs(options.agentRoot)) if (!before.has(dir)) created.add(dir);
    return [...created].sort();
  };
  for (const [index, step] of options.steps.entries()) {
    const label = step.type === 'copy' ? `copy ${step.from} -> ${step.to}` : `$ ${step.command}`;
    if (options.signal?.aborted) {
      return {
        ok: false,
        createdDirs: await finish(),
        step: index,
        message: 'rig setup was stopped',
        aborted: true,
      };
    }
    options.onOutput(`rig setup step ${index + 1}/${options.steps.length}: ${label}`);
    const outcome =
      step.type === 'copy' ? await copyStep(step, options.agentRoot, created) : await runStep(step, options);
    if (outcome.ok) continue;
    if (options.signal?.aborted) {
      return {
        ok: false,
        createdDirs: await finish(),
        step: index,
        message: `rig setup was stopped during step ${index + 1} (${label})`,
        aborted: true,
      };
    }
    if (step.allowFailure) {
      options.onOutput(`rig setup step ${index + 1} failed (allowed): ${outcome.message}`);
      continue;
    }
    return {
      ok: false,
      createdDirs: await finish(),
      step: index,
      message: `rig setup step ${index + 1} (${label}) failed: ${outcome.message}`,
      aborted: false,
    };
  }
  return { ok: true, createdDirs: await finish() };
}

async function topLevelDirs(root: string): Promise<string[]> {
  try {
    return (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

function runStep(
  step: Extract<ResolvedRigStep, { type: 'run' }>,
  options: RigSetupOptions,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const base = step.cwd.base === 'execution' ? options.executionDir : options.agentRoot;
  const cwd = join(base, step.cwd.path);
  const timeoutMs = step.timeoutMs ?? options.defaultTimeoutMs ?? 600_000;
  return new Promise((resolve) => {
    const mark = randomUUID();
    const started = spawnSafely('bash', ['-c', step.command], {
      cwd,
      env: { ...process.env, [STEP_MARK]: mark },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Out of file descriptors, a missing cwd: a failed step that says why.
    if (!started.ok) {
      void started.why.then((why) => resolve({ ok: false, message: `could not be started: ${why}` }));
      return;
    }
    const { child } = started;
    const pid = child.pid ?? -1;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    // Every process of the step carries its mark in the environment, even one that detached into a
    // session of its own (`setsid server &`) and left the parent-child tree.
    const endLeftBehind = () => endMarked(STEP_MARK, mark, 1_000);
    const stop = () => void killTree(pid, 1_000).then(endLeftBehind);
    const settle = (result: { ok: true } | { ok: false; message: string }) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      options.onProcess?.(pid, false, mark);
      resolve(result);
    };
    options.onProcess?.(pid, true, mark);
    let output = '';
    let pending = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      if (output.length < OUTPUT_CAP) output += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') options.onOutput(`  ${line}`);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    options.signal?.addEventListener('abort', stop, { once: true });
    if (options.signal?.aborted) stop();
    // The shell is done: a process it left running would hold the pipes open (and the step) for
    // good. The step's processes end with it; a service the agent needs is the agent's to start.
    let leftBehind: Promise<number> = Promise.resolve(0);
    child.once('exit', () => {
      leftBehind = new Promise((done) => setTimeout(() => void endLeftBehind().then(done), 50));
    });
    // The step is over once its output is read to the end and what it left running is gone.
    child.once('close', async (code, signal) => {
      const ended = await leftBehind;
      if (pending.trim() !== '') options.onOutput(`  ${pending}`);
      if (ended > 0) options.onOutput(`  ended ${ended} process(es) the step left running`);
      if (timedOut) settle({ ok: false, message: `timed out after ${timeoutMs} ms` });
      else if (code === 0) settle({ ok: true });
      else settle({ ok: false, message: signal ? `killed by ${signal}` : `exited with code ${code}` });
    });
  });
}
