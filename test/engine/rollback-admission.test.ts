import { describe, expect, it } from 'vitest';
import { type FollowUp, RollbackAdmission } from '../../src/engine/rollback-admission.ts';

/** What happens, in order, to one admission; `runs`/`done` stand for the orchestrator's state. */
type Step = 'command taken' | 'its turn' | 'runs' | 'done' | 'sentinel holds one for a' | 'a ends' | 'b ends';

function play(steps: readonly Step[]) {
  let underWay = false;
  const admission = new RollbackAdmission(() => underWay);
  const followUp: FollowUp = { run: async () => {}, drop: () => {} };
  const taken: Array<FollowUp | undefined> = [];
  for (const step of steps) {
    if (step === 'command taken') admission.queueCommand();
    if (step === 'its turn') admission.commandTurn();
    if (step === 'runs') underWay = true;
    if (step === 'done') underWay = false;
    if (step === 'sentinel holds one for a') admission.hold('a', followUp);
    if (step === 'a ends') taken.push(admission.takeHeld('a'));
    if (step === 'b ends') taken.push(admission.takeHeld('b'));
  }
  return { admission, taken: taken.map((t) => t === followUp) };
}

describe('rollback admission: may a rollback start now, is one waiting, what of the one after', () => {
  it.each<{ steps: Step[]; busy: boolean }>([
    { steps: [], busy: false },
    // A client's command: refused-state from its taking, through its turn, to its end.
    { steps: ['command taken'], busy: true },
    { steps: ['command taken', 'its turn', 'runs'], busy: true },
    { steps: ['command taken', 'its turn', 'runs', 'done'], busy: false },
    // Refused before it ran (a codon was running): its turn ends the wait.
    { steps: ['command taken', 'its turn'], busy: false },
    // A sentinel's: held from its taking until its codon's end, then it runs.
    { steps: ['sentinel holds one for a'], busy: true },
    { steps: ['sentinel holds one for a', 'b ends'], busy: true },
    { steps: ['sentinel holds one for a', 'a ends', 'runs'], busy: true },
    { steps: ['sentinel holds one for a', 'a ends', 'runs', 'done'], busy: false },
    // A server start's recovery runs without being taken first.
    { steps: ['runs'], busy: true },
  ])('after $steps: busy $busy (the server refuses state changes)', ({ steps, busy }) => {
    const { admission } = play(steps);
    expect(admission.busy).toBe(busy);
    expect(admission.sentinelRefusal()).toBe(busy ? 'a rollback is already under way' : undefined);
  });

  it("a held rollback is handed over at its own codon's end only, and once", () => {
    expect(play(['sentinel holds one for a', 'b ends', 'a ends', 'a ends']).taken).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('the one after is refused loudly where nothing refused it first', () => {
    expect(() => play(['command taken', 'sentinel holds one for a'])).toThrow(/another is under way/);
    expect(() => play(['its turn'])).toThrow(/without being queued/);
  });
});
