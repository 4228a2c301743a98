import { describe, expect, it } from 'vitest';
import type { AgentRun } from '../../src/agents/agent-adapter.ts';
import { resumeChain } from '../../src/agents/resume-chain.ts';
import type { StreamLine } from '../../src/agents/stream-line.ts';
import type { ProcessExit } from '../../src/core/protocol/index.ts';

/** A finished-on-demand agent process: its lines come when `release` is called, then it exits. */
function fakeRun(pid: number, lines: StreamLine[], exit: ProcessExit = { type: 'success' }) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let stopped = false;
  const exited = gate.then(() => exit);
  const run: AgentRun = {
    pid,
    lines: (async function* () {
      await gate;
      yield* lines;
    })(),
    onStderr: () => {},
    onNotice: () => {},
    exited,
    startFailure: undefined,
    send: () => false,
    inTurn: false,
    stop: async () => {
      stopped = true;
      release();
    },
  };
  return { run, release, stopped: () => stopped };
}

const init = (session: string): StreamLine => ({ type: 'system', subtype: 'init', session_id: session });
const result = (session: string, isError = false): StreamLine => ({
  type: 'result',
  subtype: isError ? 'error_during_execution' : 'success',
  is_error: isError,
  session_id: session,
});

async function drain(run: AgentRun): Promise<StreamLine[]> {
  const out: StreamLine[] = [];
  for await (const line of run.lines) out.push(line);
  return out;
}

describe('resumeChain: messages to an agent without live input', () => {
  it('runs the first turn alone when nothing is sent, and ends with its exit', async () => {
    const first = fakeRun(11, [init('s1'), result('s1')]);
    const chain = resumeChain(first.run, () => {
      throw new Error('no follow-up expected');
    });
    first.release();
    expect((await drain(chain)).map((l) => l.type)).toEqual(['system', 'result']);
    expect(await chain.exited).toEqual({ type: 'success' });
    expect(chain.send('late')).toBe(false);
  });

  it('starts one follow-up turn by resume with the messages sent meanwhile, joined, in the same session', async () => {
    const first = fakeRun(11, [init('s1'), result('s1')]);
    const second = fakeRun(12, [init('s1'), result('s1')]);
    const resumed: Array<{ text: string; session: string | undefined }> = [];
    const chain = resumeChain(first.run, (text, session) => {
      resumed.push({ text, session });
      second.release();
      return second.run;
    });
    expect(chain.inTurn).toBe(false);
    expect(chain.send('one')).toBe(true);
    expect(chain.send('two')).toBe(true);
    first.release();
    const lines = await drain(chain);
    expect(resumed).toEqual([{ text: 'one\n\ntwo', session: 's1' }]);
    expect(lines.filter((l) => l.type === 'result')).toHaveLength(2);
    expect(chain.pid).toBe(12);
  });

  it("gives a later turn's reported cost with the earlier turns' added: the chain's total, as one process would report it", async () => {
    const costing = (session: string, cost: number): StreamLine => ({
      ...result(session),
      total_cost_usd: cost,
    });
    const first = fakeRun(11, [init('s1'), costing('s1', 0.5)]);
    const second = fakeRun(12, [init('s1'), costing('s1', 0.25)]);
    const third = fakeRun(13, [init('s1'), result('s1')]);
    const next = [second, third];
    const chain = resumeChain(first.run, () => {
      const run = next.shift();
      if (!run) throw new Error('two follow-ups expected');
      if (run === second) chain.send('again');
      run.release();
      return run.run;
    });
    chain.send('more');
    first.release();
    const results = (await drain(chain)).filter((l) => l.type === 'result');
    expect(results.map((l) => l.type === 'result' && l.total_cost_usd)).toEqual([0.5, 0.75, undefined]);
  });

  it('sends nothing more after a failed turn or a stop', async () => {
    const failing = fakeRun(11, [init('s1'), result('s1', true)]);
    const chain = resumeChain(failing.run, () => {
      throw new Error('no follow-up after a failed turn');
    });
    chain.send('after failure');
    failing.release();
    await drain(chain);
    expect(await chain.exited).toEqual({ type: 'success' });

    const running = fakeRun(21, [init('s2'), result('s2')], { type: 'killed', signal: 'SIGTERM' });
    const stoppedChain = resumeChain(running.run, () => {
      throw new Error('no follow-up after a stop');
    });
    stoppedChain.send('queued');
    await stoppedChain.stop(0);
    expect(running.stopped()).toBe(true);
    await drain(stoppedChain);
    expect(await stoppedChain.exited).toEqual({ type: 'killed', signal: 'SIGTERM' });
    expect(stoppedChain.send('too late')).toBe(false);
  });
});
