import { describe, expect, it } from 'vitest';
import type { CodonOutcome } from '../../../src/engine/outcome/failure.ts';
import type { GateResult, GatesOutcome } from '../../../src/engine/outcome/gate-result.ts';
import { type RoundsOptions, throughGates } from '../../../src/engine/verify/verify-rounds.ts';

const ok: CodonOutcome = {
  exit: { type: 'success' },
  result: { isError: false, apiErrorStatus: null, message: 'done' },
  timedOut: false,
};
const apiError: CodonOutcome = {
  exit: { type: 'error', code: 1 },
  result: { isError: true, apiErrorStatus: 500, message: 'boom' },
  timedOut: false,
};
const failedGate = (round: number): GatesOutcome => ({
  kind: 'failed',
  failed: {
    gate: 0,
    gates: 1,
    command: 'make check',
    round,
    passed: false,
    exitCode: 2,
    signal: null,
    timedOut: false,
    timeoutMs: 1_000,
    stopped: false,
    durationMs: 1,
    outputTail: `round ${round}: 1 check failed\n`,
  } satisfies GateResult,
});

/** Scripted gates and agent rounds; records what the driver asked for. */
function scripted(
  gates: GatesOutcome[],
  rounds: CodonOutcome[] = [],
  extra: Partial<RoundsOptions> = {},
): { options: RoundsOptions; asked: string[]; prompts: string[] } {
  const asked: string[] = [];
  const prompts: string[] = [];
  const options: RoundsOptions = {
    codonId: 'c',
    gates: 1,
    onVerifyFailure: undefined,
    stopped: () => undefined,
    runGates: async (round) => {
      asked.push(`gates ${round}`);
      return gates.shift() ?? { kind: 'passed' };
    },
    resume: async (prompt, round) => {
      asked.push(`round ${round}`);
      prompts.push(prompt);
      return rounds.shift() ?? ok;
    },
    announce: async (message) => {
      asked.push(`info ${message.includes('feedback round') ? 'feedback' : message}`);
    },
    ...extra,
  };
  return { options, asked, prompts };
}

describe("a codon's agent, then its gates and feedback rounds", () => {
  it('no gates: the agent outcome as it is', async () => {
    const { options, asked } = scripted([], [], { gates: 0 });
    expect(await throughGates(Promise.resolve(ok), options)).toEqual(ok);
    expect(asked).toEqual([]);
  });

  it('gates run only after an agent that ended well', async () => {
    const { options, asked } = scripted([]);
    expect(await throughGates(Promise.resolve(apiError), options)).toEqual(apiError);
    expect(asked).toEqual([]);
  });

  it('passing gates: success', async () => {
    const { options, asked } = scripted([{ kind: 'passed' }]);
    expect(await throughGates(Promise.resolve(ok), options)).toEqual(ok);
    expect(asked).toEqual(['gates 0']);
  });

  it('a failing gate without feedback: the codon fails with it at once', async () => {
    const { options, asked } = scripted([failedGate(0)]);
    const outcome = await throughGates(Promise.resolve(ok), options);
    expect(outcome.verifyFailure).toMatchObject({ command: 'make check', exitCode: 2, feedbackRounds: 0 });
    expect(asked).toEqual(['gates 0']);
  });

  it('feedback: the session goes on with the gate output, then the gates run again and pass', async () => {
    const { options, asked, prompts } = scripted([failedGate(0), failedGate(1), { kind: 'passed' }], [], {
      onVerifyFailure: { feedback: true, maxRounds: 3 },
    });
    expect(await throughGates(Promise.resolve(ok), options)).toEqual(ok);
    expect(asked).toEqual([
      'gates 0',
      'info feedback',
      'round 1',
      'gates 1',
      'info feedback',
      'round 2',
      'gates 2',
    ]);
    expect(prompts[0]).toContain('round 0: 1 check failed');
    expect(prompts[1]).toContain('round 1: 1 check failed');
  });

  it('feedback stops after maxRounds: the last failure fails the codon', async () => {
    const { options, asked } = scripted([failedGate(0), failedGate(1), failedGate(2)], [], {
      onVerifyFailure: { feedback: true, maxRounds: 1 },
    });
    const outcome = await throughGates(Promise.resolve(ok), options);
    expect(outcome.verifyFailure).toMatchObject({ round: 1, feedbackRounds: 1 });
    expect(asked).toEqual(['gates 0', 'info feedback', 'round 1', 'gates 1']);
  });

  it("a feedback round whose agent fails ends the codon with the agent's failure", async () => {
    const { options, asked } = scripted([failedGate(0)], [apiError], {
      onVerifyFailure: { feedback: true, maxRounds: 3 },
    });
    expect(await throughGates(Promise.resolve(ok), options)).toEqual(apiError);
    expect(asked).toEqual(['gates 0', 'info feedback', 'round 1']);
  });

  it('a stop during a gate ends the codon stopped, with no further round', async () => {
    let stop: { by: 'forceStop'; reason: string } | undefined;
    const { options, asked } = scripted([], [], {
      onVerifyFailure: { feedback: true, maxRounds: 3 },
      stopped: () => stop,
      runGates: async () => {
        asked.push('gates');
        stop = { by: 'forceStop', reason: 'by a client: enough' };
        return { kind: 'stopped' };
      },
    });
    expect(await throughGates(Promise.resolve(ok), options)).toEqual({
      ...ok,
      stoppedBy: 'forceStop',
      stopReason: 'by a client: enough',
    });
    expect(asked).toEqual(['gates']);
  });

  it('a stop that came as the agent ended: stopped, no gate runs', async () => {
    const { options, asked } = scripted([], [], { stopped: () => ({ by: 'skip' }) });
    expect(await throughGates(Promise.resolve(ok), options)).toEqual({ ...ok, stoppedBy: 'skip' });
    expect(asked).toEqual([]);
  });
});
