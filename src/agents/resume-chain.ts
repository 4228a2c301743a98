import type { ProcessExit } from '../core/protocol/index.ts';
import type { AgentRun } from './agent-adapter.ts';
import { wrapRun } from './agent-run.ts';
import type { StreamLine } from './stream-line.ts';

/**
 * Starts the follow-up turn of an agent without live input: `text` as the prompt of a run that resumes
 * the session `sessionId` (absent when the agent never reported one).
 */
export type ResumeTurn = (text: string, sessionId: string | undefined) => AgentRun;

/**
 * An agent CLI that takes its prompt once and exits (Codex, Gemini, opencode), made one AgentRun that
 * takes messages: each message sent while it works waits for its run to end, then starts a follow-up
 * turn by resume in the same session (messages that arrived together joined into one prompt), before the
 * codon ends. A message never joins a running turn, so `inTurn` is always false (delivery `next-turn`).
 * A turn that failed (an error result, a non-zero exit) or a stop ends the chain: nothing more is sent.
 * Every process of the chain carries the codon run's mark (each resume is started with it), so a stop or
 * a crash recovery finds the current one. An agent that reports its cost reports its own process's: a
 * later turn's `total_cost_usd` is given with the earlier turns' added, the whole chain's, as a process
 * that ran every turn would report it.
 */
export function resumeChain(first: AgentRun, resume: ResumeTurn): AgentRun {
  let current = first;
  let sessionId: string | undefined;
  /** What the chain's finished processes reported as their cost. */
  let costBefore = 0;
  const queued: string[] = [];
  let stopped = false;
  let ended = false;
  let finish!: (exit: ProcessExit) => void;
  const exited = new Promise<ProcessExit>((resolve) => {
    finish = resolve;
  });
  const stderr: Array<(text: string) => void> = [];
  const notices: Array<(message: string) => void> = [];
  /** Each turn's stderr and notices reach the chain's listeners, those added before it started too. */
  const relay = (run: AgentRun) => {
    run.onStderr((text) => {
      for (const listener of stderr) listener(text);
    });
    run.onNotice((message) => {
      for (const listener of notices) listener(message);
    });
  };
  relay(first);

  async function* lines(): AsyncGenerator<StreamLine> {
    for (;;) {
      let failed = false;
      let cost: number | undefined;
      for await (const line of current.lines) {
        if (line.type === 'system' && line.session_id) sessionId = line.session_id;
        if (line.type === 'result') {
          if (line.session_id) sessionId = line.session_id;
          failed ||= line.is_error;
          if (line.total_cost_usd !== undefined) {
            cost = line.total_cost_usd;
            yield { ...line, total_cost_usd: costBefore + cost };
            continue;
          }
        }
        yield line;
      }
      costBefore += cost ?? 0;
      const exit = await current.exited;
      if (stopped || failed || exit.type !== 'success' || queued.length === 0) {
        ended = true;
        finish(exit);
        return;
      }
      current = resume(queued.splice(0).join('\n\n'), sessionId);
      relay(current);
    }
  }

  // The pid and startFailure are the current turn's.
  return wrapRun(() => current, {
    lines: lines(),
    onStderr: (listener) => {
      stderr.push(listener);
    },
    onNotice: (listener) => {
      notices.push(listener);
    },
    exited,
    send(text) {
      if (ended || stopped) return false;
      queued.push(text);
      return true;
    },
    inTurn: false,
    // Queued for the next turn: the running one never takes them up.
    get backlog() {
      return { count: queued.length, bytes: queued.reduce((sum, text) => sum + Buffer.byteLength(text), 0) };
    },
    stop(graceMs) {
      stopped = true;
      return current.stop(graceMs);
    },
  });
}
