import { join } from 'node:path';
import type { EventInput } from '../../core/protocol/index.ts';
import type { ResolvedGate } from '../../plan/loaded-plan.ts';
import { type CommandWrap, runCommand } from '../../platform/processes/run-command.ts';
import type { GateResult, GatesOutcome } from '../outcome/gate-result.ts';
import { GateOutput } from './gate-output.ts';

/** The environment variable that marks a gate command's processes (see processesWithEnv). */
export const GATE_MARK = 'RIBOSOME_GATE';

type VerifyEvent = 'verify.started' | 'verify.output' | 'verify.completed';

export type RunGatesOptions = {
  codonId: string;
  gates: readonly ResolvedGate[];
  agentRoot: string;
  /** The codon's environment (defaults.env with the codon's over it), as its agent and rig steps get it. */
  env?: Record<string, string>;
  /** The plan's key variables: kept from the gates with the server's other secrets (runCommand). */
  keyVars?: readonly string[];
  round: number;
  /** Aborting ends the running gate (its whole process tree); no further gate runs. */
  signal: AbortSignal;
  publish: <T extends VerifyEvent>(type: T, data: EventInput<T>) => Promise<unknown>;
  /** Each gate's process as it starts and ends, with its mark (so a restarted server can end it). */
  onProcess?: (pid: number, running: boolean, mark: string) => void;
  /** How long output may wait before it is streamed (a full chunk goes at once). Default 200 ms. */
  flushMs?: number;
  /** [none] Runs each gate inside the codon's sandbox (`sandbox.gates`). */
  wrap?: CommandWrap;
};

/**
 * Runs a codon's verification gates in order in the agent root, each bounded by its timeout, its
 * output streamed as `verify.output` while it runs; stops at the first that fails. Never throws.
 */
export async function runGates(o: RunGatesOptions): Promise<GatesOutcome> {
  for (const [index, gate] of o.gates.entries()) {
    if (o.signal.aborted) return { kind: 'stopped' };
    const result = await runGate(o, index, gate);
    if (result.stopped) return { kind: 'stopped' };
    if (!result.passed) return { kind: 'failed', failed: result };
  }
  return { kind: 'passed' };
}

async function runGate(o: RunGatesOptions, index: number, gate: ResolvedGate): Promise<GateResult> {
  const base = { codonId: o.codonId, gate: index };
  await o.publish('verify.started', {
    ...base,
    gates: o.gates.length,
    command: gate.run,
    cwd: gate.cwd,
    round: o.round,
  });
  const output = new GateOutput();
  // Events go out one after another, in the order the output came.
  let sent: Promise<unknown> = Promise.resolve();
  const send = (chunks: ReturnType<GateOutput['flush']>) => {
    for (const chunk of chunks)
      sent = sent.then(() => o.publish('verify.output', { ...base, ...chunk })).catch(() => {});
  };
  let timer: NodeJS.Timeout | undefined;
  const started = Date.now();
  const ran = await runCommand({
    command: gate.run,
    cwd: join(o.agentRoot, gate.cwd),
    timeoutMs: gate.timeoutMs,
    markName: GATE_MARK,
    ...(o.env ? { env: o.env } : {}),
    ...(o.keyVars ? { keyVars: o.keyVars } : {}),
    signal: o.signal,
    ...(o.onProcess ? { onProcess: o.onProcess } : {}),
    ...(o.wrap ? { wrap: o.wrap } : {}),
    onData: (stream, text) => {
      send(output.push(stream, text));
      timer ??= setTimeout(() => {
        timer = undefined;
        send(output.flush());
      }, o.flushMs ?? 200);
    },
  });
  clearTimeout(timer);
  if (ran.startFailure !== undefined) output.push('stderr', `could not be started: ${ran.startFailure}\n`);
  send(output.flush());
  await sent;
  const result: GateResult = {
    gate: index,
    gates: o.gates.length,
    command: gate.run,
    round: o.round,
    passed: ran.exitCode === 0 && !ran.timedOut && !ran.aborted,
    exitCode: ran.exitCode,
    signal: ran.signal,
    timedOut: ran.timedOut,
    timeoutMs: gate.timeoutMs,
    stopped: ran.aborted,
    ...(ran.startFailure !== undefined ? { startFailure: ran.startFailure } : {}),
    durationMs: Date.now() - started,
    outputTail: output.tail,
  };
  await o.publish('verify.completed', {
    ...base,
    command: gate.run,
    round: o.round,
    passed: result.passed,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    ...(result.stopped ? { stopped: true } : {}),
    durationMs: result.durationMs,
    outputTail: result.outputTail,
  });
  return result;
}
