import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResolvedRigStep } from '../plan/index.ts';
import { type CommandWrap, runCommand } from '../platform/processes/run-command.ts';
import { copyStep } from './rig-copy.ts';

export type RigSetupResult =
  | { ok: true; createdDirs: string[] }
  | { ok: false; createdDirs: string[]; step: number; message: string; aborted: boolean };

export type RigSetupOptions = {
  steps: readonly ResolvedRigStep[];
  agentRoot: string;
  executionDir: string;
  /** The codon's `env` (defaults.env with the codon's over it): `run` commands see it. */
  env?: Record<string, string>;
  /** The plan's key variables: kept from the steps with the server's other secrets (runCommand). */
  keyVars?: readonly string[];
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
  /** [none] Runs each command inside the codon's sandbox (`sandbox.rig`). */
  wrap?: CommandWrap;
};

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

async function runStep(
  step: Extract<ResolvedRigStep, { type: 'run' }>,
  options: RigSetupOptions,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const base = step.cwd.base === 'execution' ? options.executionDir : options.agentRoot;
  const timeoutMs = step.timeoutMs ?? options.defaultTimeoutMs ?? 600_000;
  let pending = '';
  const result = await runCommand({
    command: step.command,
    cwd: join(base, step.cwd.path),
    timeoutMs,
    markName: STEP_MARK,
    ...(options.env ? { env: options.env } : {}),
    ...(options.keyVars ? { keyVars: options.keyVars } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProcess ? { onProcess: options.onProcess } : {}),
    ...(options.wrap ? { wrap: options.wrap } : {}),
    onData: (_stream, text) => {
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') options.onOutput(`  ${line}`);
    },
  });
  // Out of file descriptors, a missing cwd: a failed step that says why.
  if (result.startFailure !== undefined)
    return { ok: false, message: `could not be started: ${result.startFailure}` };
  if (pending.trim() !== '') options.onOutput(`  ${pending}`);
  if (result.leftBehind > 0)
    options.onOutput(`  ended ${result.leftBehind} process(es) the step left running`);
  if (result.timedOut) return { ok: false, message: `timed out after ${timeoutMs} ms` };
  if (result.exitCode === 0) return { ok: true };
  return {
    ok: false,
    message: result.signal ? `killed by ${result.signal}` : `exited with code ${result.exitCode}`,
  };
}
