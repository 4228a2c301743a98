import { existsSync, realpathSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { executionsIn } from '../../execution/layout/executions-in.ts';
import type { EffectiveSandbox } from '../../plan/sandbox-resolve.ts';
import {
  defaultHidden,
  type SandboxLaunch,
  serviceSockets,
  startNetworkGate,
} from '../../platform/sandbox/index.ts';
import { DenialCoalescer, type DeniedEvent } from './denial-coalescer.ts';
import { buildLaunch } from './launch.ts';

/** A codon's open sandbox: the launch its agent runs in, and the end of its network gate. */
export type CodonSandbox = { launch: SandboxLaunch; close(): Promise<void> };

export type OpenSandbox = {
  codonId: string;
  sandbox: EffectiveSandbox;
  agentRoot: string;
  /** The data directory's link in the agent root. */
  dataDir?: string;
  executionDir: string;
  rigArchive: string;
  /** The agent's LLM base URL: the gate's route. */
  route: string;
  publish: (event: DeniedEvent) => void;
  logger: Logger;
};

/**
 * Opens the sandbox of one attempt of a codon (docs/agents.md#the-sandbox): its network gate (unless
 * the network is open), whose refusals are published as `sandbox.denied`, coalesced; and its launch.
 * `close` ends the gate and publishes what the coalescer still held.
 */
export async function openCodonSandbox(o: OpenSandbox): Promise<CodonSandbox> {
  const coalescer = new DenialCoalescer(o.codonId);
  let timer: NodeJS.Timeout | undefined;
  const wake = (at: number | undefined) => {
    if (at === undefined || timer) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        const due = coalescer.due(Date.now());
        for (const event of due.publish) o.publish(event);
        wake(due.wakeAt);
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref();
  };
  const { network } = o.sandbox;
  const gate =
    network === 'open'
      ? undefined
      : await startNetworkGate({
          route: o.route,
          allow: network.allow,
          onDenied: (denial) => {
            o.logger.warn({ codonId: o.codonId, denial }, 'the sandbox refused a connection');
            const out = coalescer.denied(denial, Date.now());
            if (out.publish) o.publish(out.publish);
            wake(out.wakeAt);
          },
        });
  const home = homedir();
  // The home the password file names too, when HOME points elsewhere: its secrets are as real.
  const homes = [...new Set([home, userInfo().homedir])];
  const launch = buildLaunch(
    o.sandbox,
    {
      agentRoot: o.agentRoot,
      executionDir: o.executionDir,
      rigArchive: o.rigArchive,
      ...(o.dataDir && existsSync(o.dataDir) ? { dataDir: realpathSync(o.dataDir) } : {}),
      home,
      otherExecutions: executionsIn(dirname(o.executionDir)).filter((dir) => dir !== o.executionDir),
      secrets: [...homes.flatMap(defaultHidden), ...serviceSockets(gate ? 'gated' : 'open')],
    },
    gate ? { kind: 'gated', socket: gate.socket, port: gate.port } : { kind: 'open' },
  );
  let closed: Promise<void> | undefined;
  return {
    launch,
    close: () => {
      closed ??= (async () => {
        await gate?.close();
        clearTimeout(timer);
        for (const event of coalescer.due(Date.now(), true).publish) o.publish(event);
      })();
      return closed;
    },
  };
}
