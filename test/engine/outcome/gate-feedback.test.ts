import { describe, expect, it } from 'vitest';
import { classifyOutcome } from '../../../src/engine/outcome/failure.ts';
import { feedbackPrompt, verifyFailureMessage } from '../../../src/engine/outcome/gate-feedback.ts';
import type { GateResult } from '../../../src/engine/outcome/gate-result.ts';

const failed: GateResult = {
  gate: 1,
  gates: 2,
  command: 'npm test',
  round: 0,
  passed: false,
  exitCode: 3,
  signal: null,
  timedOut: false,
  timeoutMs: 1_000,
  stopped: false,
  durationMs: 12,
  outputTail: 'FAIL test/a.test.ts\nexpected 2, got 3\n',
};

describe('a failed gate, in words', () => {
  it.each([
    [{}, 'exited with code 3'],
    [{ timedOut: true, exitCode: null, signal: 'SIGTERM' }, 'timed out after 1000 ms'],
    [{ exitCode: null, signal: 'SIGKILL' }, 'was killed by SIGKILL'],
    [{ exitCode: null, startFailure: 'spawn bash ENOENT' }, 'could not be started: spawn bash ENOENT'],
  ])('%o: %s', (change, how) => {
    const message = verifyFailureMessage({ ...failed, ...change, feedbackRounds: 0 });
    expect(message).toContain(`verification gate 2/2 \`npm test\` ${how}; output ends with:`);
    expect(message).toContain('expected 2, got 3');
  });

  it('counts the feedback rounds it took', () => {
    expect(verifyFailureMessage({ ...failed, feedbackRounds: 2 })).toContain('after 2 feedback rounds');
  });

  it("the feedback prompt carries the command, how it failed and the output's tail", () => {
    const prompt = feedbackPrompt(failed);
    expect(prompt).toContain('`npm test` exited with code 3');
    expect(prompt).toContain('expected 2, got 3');
  });

  it('a codon whose agent ended well but whose gate failed fails with type verify, not retriable', () => {
    const outcome = {
      exit: { type: 'success' as const },
      result: { isError: false, apiErrorStatus: null, message: 'done' },
      timedOut: false,
    };
    expect(classifyOutcome(outcome)).toEqual({ success: true });
    expect(classifyOutcome({ ...outcome, verifyFailure: { ...failed, feedbackRounds: 1 } })).toEqual({
      success: false,
      failureReason: {
        type: 'verify',
        retriable: false,
        message: expect.stringContaining('`npm test` exited with code 3 after 1 feedback round;'),
      },
    });
    // A stop during a gate is a stop, whatever the gate said.
    expect(
      classifyOutcome({ ...outcome, stoppedBy: 'forceStop', verifyFailure: { ...failed, feedbackRounds: 0 } })
        .failureReason?.type,
    ).toBe('unknown');
  });
});
