import { createInterface } from 'node:readline';
import type { ProcessExit } from '../core/protocol/index.ts';
import { lastWords } from '../platform/processes/last-words.ts';
import { endGroup, endMarked, killTree } from '../platform/processes/process-tree.ts';
import { keepLifeline, lifelineStdio } from '../platform/processes/run-command.ts';
import { spawnSafely } from '../platform/processes/spawn-safely.ts';
import { endSandbox, type SandboxLaunch, sandboxedCommand } from '../platform/sandbox/index.ts';
import { killPoint } from '../platform/storage/kill-point.ts';
import type { AgentRun } from './agent-adapter.ts';
import { AgentInput, type InputFormat, UNTAKEN_QUIET_MS, type UntakenWhy } from './agent-input.ts';
import { parseJsonLine } from './json-line.ts';
import { StreamLine } from './stream-line.ts';

/**
 * The environment variable that marks every process of one agent run (the agent, its tools, what
 * they start): a process that left the agent's tree (`setsid ... &`, a double fork) still carries
 * it, so it is found and ended with the run (see process-tree `endMarked`).
 */
export const AGENT_MARK = 'RIBOSOME_AGENT_RUN';

export type SpawnSpec = {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The prompt: written to stdin, which is then closed (`text`), or its first message (`stream-json`). */
  stdin: string;
  /** [input='text'] `stream-json`: stdin stays open for messages (AgentRun.send) until a result with none pending. */
  input?: InputFormat;
  /** This run's value of AGENT_MARK, unique to it: only its processes carry it. */
  mark: string;
  /** [Claude Code's stream-json, as it is] How stdout lines become stream-json lines (other agents' JSON). */
  translator?: Translator;
  /**
   * Run inside this sandbox (docs/agents.md#the-sandbox): under bwrap, with the sandbox's
   * environment on top of `env`. The caller has checked sandboxSupport() and started the launch's
   * network gate.
   */
  sandbox?: SandboxLaunch;
};

/**
 * Reads an agent CLI's own JSON lines as the stream-json lines the engine knows (src/agents/stream-line.ts):
 * zero or more per line, and at the end of the output whatever a CLI that stopped short left unsaid (a
 * `result` for a run that ended without one). Stateful: one per process.
 */
export type Translator = {
  line(text: string): { ok: true; lines: StreamLine[] } | { ok: false; error: string };
  end?(): StreamLine[];
};

/** Claude Code's stream-json, one line each. */
const streamJson: Translator = {
  line(text) {
    const parsed = parseJsonLine(text, StreamLine);
    return parsed.ok ? { ok: true, lines: [parsed.value] } : parsed;
  },
};

/** A process exit code for "could not be started" (as a shell reports a missing command). */
const NOT_STARTED = 127;

/**
 * Starts an agent process in its own process group and reads its stream-json stdout line by line.
 * Non-JSON stdout lines and stderr go to the stderr listeners (for the log). An agent that cannot be
 * started (EMFILE, a missing binary) is a run that ends at once with `startFailure` saying why.
 */
export function spawnAgent(spec: SpawnSpec): AgentRun {
  const { command, args, env, lifeline } = sandboxed(spec);
  const started = spawnSafely(command, args, {
    cwd: spec.cwd,
    // Set last: a codon's `env` cannot unmark its agent.
    env: { ...env, [AGENT_MARK]: spec.mark },
    detached: true,
    // A sandbox gets its lifeline: its other end closes with this process, whatever ends it.
    stdio: ['pipe', 'pipe', 'pipe', ...lifelineStdio(lifeline)],
  });
  if (!started.ok) return notStarted(started.why, spec.mark);
  const { child } = started;
  killPoint('agent-spawned');
  keepLifeline(child, lifeline);
  const stderrListeners: Array<(text: string) => void> = [];
  const emitStderr = (text: string) => {
    for (const l of stderrListeners) l(text);
  };
  /** The end of what the agent printed on stderr: a run that ended short says what it said last. */
  let stderrEnd = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderrEnd = (stderrEnd + text).slice(-STDERR_KEPT);
    emitStderr(text);
  });
  child.stdin?.on('error', () => {
    // The agent may exit before reading its prompt; its exit status tells the story.
  });
  const noticeListeners: Array<(message: string) => void> = [];
  const input = new AgentInput(spec.input ?? 'text', spec.stdin, {
    write: (text) => {
      if (child.stdin?.writable) child.stdin.write(text);
    },
    end: () => child.stdin?.end(),
    untaken: (texts, why) => {
      const message = untakenNotice(texts, why);
      for (const l of noticeListeners) l(message);
    },
  });

  /** The signal stop() sent the agent while it ran, if it did. */
  let signalled: NodeJS.Signals | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('close', (code, signal) => {
      input.ended();
      if (signal) resolve({ type: 'killed', signal });
      // A stop we asked for reads as one, however the agent ended while handling our SIGTERM (Claude
      // Code exits 143, the built-in agent 1 or 143, either may exit 0): killed by the signal sent.
      else if (signalled) resolve({ type: 'killed', signal: signalled });
      else resolve(code === 0 ? { type: 'success' } : { type: 'error', code: code ?? 1 });
    });
  });

  async function* lines(): AsyncGenerator<StreamLine> {
    if (!child.stdout) return;
    const translator = spec.translator ?? streamJson;
    const reader = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const text of reader) {
      if (text.trim() === '') continue;
      const parsed = translator.line(text);
      if (parsed.ok) {
        for (const line of parsed.lines) {
          input.seen(line);
          yield line;
        }
      } else
        emitStderr(
          `[stdout, not ${spec.translator ? "the agent's JSON" : 'stream-json'}] ${text.slice(0, 500)}`,
        );
    }
    const ended = translator.end?.() ?? [];
    // A CLI that died without its result: its own last words say why (all of stderr is read once it closed).
    const exit = ended.some((line) => line.type === 'result' && line.is_error) ? await exited : undefined;
    for (const line of ended) yield exit ? withLastWords(line, exit, stderrEnd) : line;
    input.ended();
  }

  const pid = child.pid ?? -1;
  let stopping: Promise<void> | undefined;
  return {
    pid,
    lines: lines(),
    onStderr: (listener) => {
      stderrListeners.push(listener);
    },
    onNotice: (listener) => {
      noticeListeners.push(listener);
    },
    exited,
    startFailure: undefined,
    send: (text) => input.send(text),
    get inTurn() {
      return input.inTurn;
    },
    get backlog() {
      return input.backlog;
    },
    stop(graceMs) {
      // Once the agent has exited (the usual last stop), its tree is gone: only its group is left.
      const reaped = child.exitCode !== null || child.signalCode !== null;
      if (!reaped) signalled ??= 'SIGTERM';
      // A sandbox ends whole when its agent does (its own process namespace): the agent is asked first.
      stopping ??= reaped
        ? endGroup(pid, graceMs)
        : spec.sandbox
          ? endSandbox(pid, graceMs)
          : killTree(pid, graceMs);
      // What left the tree still carries the run's mark; looked for at every stop, the last one
      // (after the agent exited) included. In a sandbox nothing leaves it (its own process namespace),
      // and the bwraps carry the mark too: looked for only once the sandbox is gone, since a signal
      // to the outer bwrap would end the agent at once, before it could end well.
      if (spec.sandbox) return stopping.then(() => endMarked(AGENT_MARK, spec.mark, graceMs)).then(() => {});
      return Promise.all([stopping, endMarked(AGENT_MARK, spec.mark, graceMs)]).then(() => {});
    },
  };
}

/** The command line and environment that start `spec`: as they are, or inside its sandbox. */
function sandboxed(spec: SpawnSpec): {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  lifeline?: number;
} {
  return spec.sandbox ? sandboxedCommand(spec, spec.sandbox) : spec;
}

/** How much of the end of an agent's stderr is kept for a failure message. */
const STDERR_KEPT = 8192;
/**
 * A failed result a translator made up for a CLI that ended without one, with how the process ended
 * and its last words on stderr. Other lines as they are. Pure.
 */
export function withLastWords(line: StreamLine, exit: ProcessExit, stderr: string): StreamLine {
  if (line.type !== 'result' || !line.is_error) return line;
  const how =
    exit.type === 'error'
      ? `exit code ${exit.code}`
      : exit.type === 'killed'
        ? `killed by ${exit.signal}`
        : 'exit code 0';
  const words = lastWords(stderr);
  const said = words.length > 0 ? `; its stderr ended: ${words.join(' / ')}` : '; nothing on stderr';
  return { ...line, result: `${line.result ?? 'the agent failed'} (${how}${said})` };
}

/**
 * What the journal says when the agent's input was closed with messages it did not take up: the
 * rest of a sentence about the agent ("codon one's agent did not take up ..."). Never the prompt.
 */
export function untakenNotice(texts: readonly string[], why: UntakenWhy = 'quiet'): string {
  const quoted = texts.map((text) => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text));
  const which =
    texts.length === 1 ? `a message (${quoted[0]})` : `${texts.length} messages (${quoted.join(', ')})`;
  const them = texts.length === 1 ? 'it' : 'them';
  if (why === 'failed-first')
    return `failed before its first turn, so it never took up ${which} sent to it: the codon ends without ${them}`;
  return `did not take up ${which} after its answer and printed nothing for ${UNTAKEN_QUIET_MS / 1000} s: its input was closed, so the codon ends without ${them}`;
}

/** A run whose agent never started: no output, exit code 127, and why in `startFailure`. */
export function notStarted(why: Promise<string> | string, mark?: string): AgentRun {
  let reason: string | undefined;
  const exited = Promise.resolve(why).then((text): ProcessExit => {
    reason = text;
    return { type: 'error', code: NOT_STARTED };
  });
  const stderrListeners: Array<(text: string) => void> = [];
  void exited.then(() => {
    for (const l of stderrListeners) l(`could not start the agent: ${reason}`);
  });
  return {
    pid: -1,
    lines: (async function* () {})(),
    onStderr: (listener) => {
      stderrListeners.push(listener);
    },
    exited,
    onNotice: () => {},
    get startFailure() {
      return reason;
    },
    send: () => false,
    inTurn: false,
    stop: (graceMs) => (mark ? endMarked(AGENT_MARK, mark, graceMs).then(() => {}) : Promise.resolve()),
  };
}
