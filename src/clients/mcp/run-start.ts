import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { listeningAddress } from '../background/log-tail.ts';
import { type RibosomeProcess, startRibosomeProcess } from '../background/ribosome-process.ts';
import type { McpContext } from './context.ts';
import { runArgs, runOutputLog, type StartRequest } from './start-args.ts';
import { ToolError } from './tool-result.ts';

/** How long a run may take to listen (it loads the plan, checks agents, opens the execution). */
const LISTEN_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

export type StartedRun = { url: string; pid: number; log: string; process: RibosomeProcess };

/**
 * Starts `ribosome run` in the background (a process group of its own, its output in the execution's
 * `.ribosome/logs/run-output.log`) and waits for its `listening` line. A run that exits first, or
 * never listens, is a refusal quoting the end of what it printed (and the latter is stopped).
 */
export async function startRun(request: StartRequest, context: McpContext): Promise<StartedRun> {
  const log = runOutputLog(request.execution);
  const env = loopbackDirect({
    ...context.env,
    ...(context.token ? { RIBOSOME_TOKEN: context.token } : {}),
  });
  const from = sizeOf(log);
  const child = startRibosomeProcess(runArgs(request), log, env);
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + LISTEN_TIMEOUT_MS;
  for (;;) {
    const said = readFrom(log, from);
    const url = listeningAddress(said);
    if (url) return { url, pid: child.pid, log, process: child };
    if (exited) {
      const exit = await child.exited;
      throw new ToolError(
        `ribosome run exited (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`}) before it listened; it said:\n${tail(said)}`,
      );
    }
    if (Date.now() > deadline) {
      await child.stop(5_000);
      throw new ToolError(
        `ribosome run did not listen within ${LISTEN_TIMEOUT_MS / 1000}s and was stopped; it said:\n${tail(said)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** What the file holds past `offset` (this start's output, not an earlier start's in the same log). */
function readFrom(file: string, offset: number): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const length = Math.max(0, statSync(file).size - offset);
    const buffer = Buffer.alloc(Math.min(length, 1 << 20));
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** The last lines of what a run printed, at most 20. */
function tail(text: string): string {
  const lines = text.trimEnd().split('\n');
  return lines.slice(-20).join('\n') || '(nothing)';
}

/**
 * The run's environment with loopback left out of any proxy it inherits: `ribosome mcp` started by an
 * agent in a sandbox has the sandbox's gate as its proxy, and the run it starts listens on loopback
 * itself (its scripted provider, its proxy) where the gate would refuse it. Pure.
 */
export function loopbackDirect(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const proxied = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some((name) => env[name]);
  if (!proxied) return env;
  const loopback = ['127.0.0.1', 'localhost', '::1'];
  const kept = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  const noProxy = [...new Set([...kept, ...loopback])].join(',');
  return { ...env, NO_PROXY: noProxy, no_proxy: noProxy };
}
