import type { OnVerifyFailure } from '../../plan/unattended-schema.ts';
import type { CodonOutcome } from '../outcome/failure.ts';
import { classifyOutcome } from '../outcome/failure.ts';
import { feedbackPrompt, howItFailed } from '../outcome/gate-feedback.ts';
import type { GatesOutcome } from '../outcome/gate-result.ts';

type StopKind = NonNullable<CodonOutcome['stoppedBy']>;

export type RoundsOptions = {
  codonId: string;
  /** How many gates the codon has (none: the agent's outcome is the codon's). */
  gates: number;
  onVerifyFailure: OnVerifyFailure | undefined;
  /** The stop asked for the codon, if one was. */
  stopped: () => { by: StopKind; reason?: string } | undefined;
  /** Runs the gates; must be stoppable (a stop ends the running gate: `stopped`). */
  runGates: (round: number) => Promise<GatesOutcome>;
  /** Starts the agent again, continuing its session with `prompt`; resolves with how it ended. */
  resume: (prompt: string, round: number) => Promise<CodonOutcome>;
  /** An `info` event. */
  announce: (message: string) => Promise<unknown>;
};

/**
 * A codon's course after its agent's first run: when the agent ended well, its gates; when a gate
 * fails and feedback is on, up to maxRounds more rounds of the agent (its session continued with
 * the gate's output) each followed by the gates again. Resolves with the outcome the codon ends
 * with: the agent's, marked with the stop or the failed gate when there was one.
 */
export async function throughGates(first: Promise<CodonOutcome>, o: RoundsOptions): Promise<CodonOutcome> {
  let outcome = await first;
  const maxRounds = o.onVerifyFailure?.feedback ? o.onVerifyFailure.maxRounds : 0;
  for (let round = 0; ; round++) {
    const stop = o.stopped();
    // A stop that came as the agent was ending: the codon is stopped, not verified.
    if (stop && !outcome.stoppedBy)
      return { ...outcome, stoppedBy: stop.by, ...(stop.reason ? { stopReason: stop.reason } : {}) };
    if (o.gates === 0 || !classifyOutcome(outcome).success) return outcome;
    const gates = await o.runGates(round);
    if (gates.kind === 'passed') return outcome;
    if (gates.kind === 'stopped') {
      const by = o.stopped();
      return by
        ? { ...outcome, stoppedBy: by.by, ...(by.reason ? { stopReason: by.reason } : {}) }
        : { ...outcome, stoppedBy: 'forceStop' };
    }
    if (round >= maxRounds) return { ...outcome, verifyFailure: { ...gates.failed, feedbackRounds: round } };
    const { failed } = gates;
    await o.announce(
      `codon ${o.codonId}: gate ${failed.gate + 1}/${failed.gates} \`${failed.command}\` ${howItFailed(failed)}; feedback round ${round + 1} of ${maxRounds}: the agent's session goes on with the gate's output`,
    );
    const again = o.stopped();
    if (again)
      return { ...outcome, stoppedBy: again.by, ...(again.reason ? { stopReason: again.reason } : {}) };
    outcome = await o.resume(feedbackPrompt(failed), round + 1);
  }
}
