/**
 * The adversarial probe's I/O shell: plants a key in a temp HOME and a secret in the server's
 * environment, starts two loopback servers and `ribosome run` on a fixed port with the probe plan,
 * waits for the plan's end, and reads back what each attempt did: from the tool results, the host's
 * files and /proc, the journal, and a rollback to codon `first`. Everything started is ended here.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { writePlanAndScript } from '../../helpers/plans.ts';
import { pidsWith } from '../../helpers/processes.ts';
import { bounded, journalRows, startServer } from '../../helpers/server-process.ts';
import {
  ALLOWED_ANSWER,
  DENIED_ANSWER,
  FIRST_CONTENT,
  type ProbeAgent,
  type ProbeMode,
  type ProbeTargets,
  probeFiles,
  probeLines,
  probePlan,
  probeScript,
  type ShellCall,
  WORK_CONTENT,
} from './probe-plan.ts';

export type ProbeSpec = {
  agent: ProbeAgent;
  model: string;
  /** Its CLI (a path or a command on PATH); absent: the built-in agent. */
  binary?: string;
  shell: ShellCall;
  /** Tracks the agent needs besides the codons' (a session title, tool-less requests). */
  sideTracks?: string;
  env?: NodeJS.ProcessEnv;
};

/** What one run showed: each probe's line, and what the test saw for itself. */
export type ProbeRun = {
  lines: Map<string, { outcome: string; line: string }>;
  events: ServerEvent[];
  /** The journal's events of the four codons that completed (empty when the journal is gone). */
  journaled: Array<{ type: string; data: Record<string, unknown> }>;
  key: string;
  secret: string;
  serverPid: number | undefined;
  work: string | undefined;
  outsideWritten: boolean;
  dataWritten: boolean;
  historyLeft: boolean;
  sleepLeft: number[];
  rollback: string;
  /** `stdout`/`stderr` tails of the server, for failure messages. */
  log: string;
};

const WAIT = 420_000;

/** A base outside /tmp: the sandbox's private /tmp would hide a temp HOME there whatever it hides. */
function base(): string {
  const parent = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  return mkdtempSync(join(parent, 'ribosome-probe-'));
}

function listen(answer: string): Promise<Server> {
  const server = createServer((_req, res) => res.end(answer));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

/** A port free now (the control port, fixed so that the codon may be told it). */
function freePort(): Promise<number> {
  const server = createNetServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }),
  );
}

/** Ends every run's sleep, key and planted secret, whatever happened. */
export async function runProbe(
  spec: ProbeSpec,
  mode: ProbeMode | 'absent',
  sleepSeconds: number,
): Promise<ProbeRun> {
  const dir = base();
  const home = join(dir, 'home');
  const data = join(dir, 'data');
  const exec = join(dir, 'exec');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(data);
  const key = `PROBE-SSH-KEY-${randomBytes(6).toString('hex')}`;
  writeFileSync(join(home, '.ssh', 'id_ed25519'), key, { mode: 0o600 });
  const secret = `probe-secret-${randomBytes(6).toString('hex')}`;
  const allowed = await listen(ALLOWED_ANSWER);
  const denied = await listen(DENIED_ANSWER);
  const controlPort = await freePort();
  const targets: ProbeTargets = {
    home,
    data,
    allowedPort: portOf(allowed),
    deniedPort: portOf(denied),
    sleepSeconds,
    node: process.execPath,
    scripts: join(dir, 'probes'),
  };
  mkdirSync(targets.scripts);
  for (const [name, body] of Object.entries(probeFiles(targets)))
    writeFileSync(join(targets.scripts, name), body);
  const plan = probePlan(
    spec.agent,
    spec.model,
    mode === 'absent' ? undefined : { mode, allowedPort: targets.allowedPort },
    controlPort,
  );
  const files = writePlanAndScript(dir, plan, probeScript(spec.shell, targets, spec.sideTracks));
  const server = await startServer(
    files.plan,
    exec,
    ['--scripted-provider', files.script, '--port', String(controlPort), '--data', data],
    60_000,
    { ...spec.env, HOME: home, RIBOSOME_PROBE_SECRET: secret },
  );
  let client: RibosomeClient | undefined;
  try {
    client = await RibosomeClient.connect(server.url, { mode: 'readandwrite', sendPreviousEvents: true });
    const live = client;
    const idle = live
      .waitFor((e) => e.type === 'server.idle', WAIT, 'the plan to end')
      .catch(() => undefined);
    // The plan ends, or the server does (a deleted store is a fatal error).
    await bounded(Promise.race([idle, server.exited]), WAIT);
    const events = [...(live.handshake.eventHistory as ServerEvent[]), ...live.received];
    const sleepLeft = pidsWith(`sleep ${sleepSeconds}`);
    const historyLeft = existsSync(join(exec, '.ribosome', 'ribosome.db'));
    const work = readIf(join(exec, 'agentRoot', 'work.txt'));
    const rollback = await rollBack(live, join(exec, 'agentRoot'));
    const journaled = historyLeft ? journalRows(exec).filter((r) => r.type === 'codon.completed') : [];
    return {
      lines: probeLines(events.map((e) => (e.type === 'tool.result' ? e.data.result : '')).join('\n')),
      events,
      journaled,
      key,
      secret,
      serverPid: server.child.pid,
      work,
      outsideWritten: existsSync(join(exec, 'outside.txt')),
      dataWritten: existsSync(join(data, 'probe-written.txt')),
      historyLeft,
      sleepLeft,
      rollback,
      log: `tool results:\n${events
        .flatMap((e) =>
          e.type === 'tool.result' ? [`[${e.data.codonId}] ${e.data.result.slice(0, 300)}`] : [],
        )
        .join('\n')}\nserver stderr: ${server.stderr().slice(-2000)}`,
    };
  } finally {
    for (const pid of pidsWith(`sleep ${sleepSeconds}`)) killQuietly(pid);
    await client?.close();
    server.kill('SIGKILL');
    await bounded(server.exited, 10_000);
    allowed.close();
    denied.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `rollback.toCodon first`: `restored` (first.txt holds codon first's work again), `poisoned` (the
 * rollback said it succeeded and wrote other content), or `failed: <why>`.
 */
async function rollBack(client: RibosomeClient, root: string): Promise<string> {
  if (client.state !== 'open') return 'failed: the server is gone';
  try {
    await client.request(
      'rollback.toCodon',
      { codonId: 'first', checkpointType: 'completed' },
      'rollback.completed',
      { timeoutMs: 60_000 },
    );
    const content = readIf(join(root, 'first.txt'));
    return content === FIRST_CONTENT ? 'restored' : `poisoned (${content})`;
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}

function readIf(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone meanwhile.
  }
}

export { WORK_CONTENT };
