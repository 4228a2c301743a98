/**
 * fast-check commands over the model and the harness: each command is one action (or a kill or
 * shutdown with the restart after it); `check` is the model's precondition, `run` steps the model,
 * performs the action on the real server and checks what the model expects.
 */
import fc from 'fast-check';
import { Harness, type HarnessOptions } from './harness.ts';
import {
  type Action,
  applicable,
  type Behaviour,
  describe,
  initialModel,
  type KillAt,
  type ModelState,
  PLAN,
  PLANTED_POINTS,
  type RollbackType,
  step,
} from './model.ts';

export type ModelBox = { state: ModelState };

/** One command: an action, or a kill / shutdown and the restart that follows it. */
export class StepCommand implements fc.AsyncCommand<ModelBox, Harness> {
  readonly actions: Action[];
  constructor(...actions: Action[]) {
    this.actions = actions;
  }
  check(m: Readonly<ModelBox>): boolean {
    return this.actions[0] !== undefined && applicable(m.state, this.actions[0]);
  }
  async run(m: ModelBox, h: Harness): Promise<void> {
    for (const [i, action] of this.actions.entries()) {
      const { state, expect } = step(m.state, action);
      await h.perform(action, m.state, state, expect);
      m.state = state;
      // A server that died at its planted kill point is started again (as after a kill).
      if (expect.planted && this.actions[i + 1]?.type !== 'restart')
        await new StepCommand({ type: 'restart', autostart: state.autostart }).run(m, h);
    }
  }
  toString(): string {
    return this.actions.map(describe).join(' + ');
  }
}

const codon = fc.constantFrom(...PLAN);
const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  { arbitrary: fc.constant('stuck' as const), weight: 4 },
  { arbitrary: fc.constant('500' as const), weight: 1 },
  { arbitrary: fc.constant('429' as const), weight: 1 },
  { arbitrary: fc.constant('ok' as const), weight: 1 },
);
const rollbackType: fc.Arbitrary<RollbackType> = fc.oneof(
  { arbitrary: fc.constant('start' as const), weight: 4 },
  { arbitrary: fc.constant('end' as const), weight: 3 },
  { arbitrary: fc.constantFrom('completed' as const, 'error' as const, 'skipped' as const), weight: 2 },
  { arbitrary: fc.constant('rig-setup' as const), weight: 1 },
);

/**
 * Mostly a kill point the model can plant, reached the first to third time (a server that never
 * reaches it lives on). Weighted to how seldom each is reached: every server begins a run and most
 * complete a codon; few fail, stop or skip one or roll back.
 */
const killAt: fc.Arbitrary<KillAt | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 1 },
  {
    arbitrary: fc.record({
      point: fc.oneof(
        ...PLANTED_POINTS.map((point) => ({
          arbitrary: fc.constant(point),
          weight: point === 'checkpoint:initial' ? 1 : point === 'checkpoint:completed' ? 2 : 4,
        })),
      ),
      nth: fc.oneof(
        { arbitrary: fc.constant(1), weight: 2 },
        { arbitrary: fc.constantFrom(2, 3), weight: 1 },
      ),
    }),
    weight: 3,
  },
);

const restart = (autostart: boolean, at?: KillAt): Action => ({
  type: 'restart',
  autostart,
  ...(at ? { killAt: at } : {}),
});

/** What one command does: mostly one action; a kill or a shutdown comes with its restart. */
export const stepArb: fc.Arbitrary<Action[]> = fc
  .oneof(
    {
      arbitrary: fc.record({ type: fc.constant('behaviour' as const), codonId: codon, behaviour }),
      weight: 5,
    },
    { arbitrary: fc.record({ type: fc.constant('codon.start' as const), codonId: codon }), weight: 2 },
    { arbitrary: fc.constant({ type: 'codon.next' as const }), weight: 2 },
    { arbitrary: fc.constant({ type: 'codon.redo' as const }), weight: 2 },
    { arbitrary: fc.constant({ type: 'codon.skip' as const }), weight: 2 },
    { arbitrary: fc.constant({ type: 'codon.forceStop' as const }), weight: 1 },
    {
      arbitrary: fc.record({
        type: fc.constant('rollback.toCodon' as const),
        codonId: codon,
        checkpointType: rollbackType,
        autoRestart: fc.boolean(),
      }),
      weight: 3,
    },
    {
      arbitrary: fc.record({
        type: fc.constant('rollback.toLastSuccess' as const),
        autoRestart: fc.boolean(),
      }),
      weight: 1,
    },
    {
      arbitrary: fc.record({
        type: fc.constant('rollback.toCheckpoint' as const),
        index: fc.nat({ max: 20 }),
        autoRestart: fc.boolean(),
      }),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(fc.boolean(), killAt)
        .map(([a, at]): Action[] => [{ type: 'kill' }, restart(a, at)]),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(fc.boolean(), killAt)
        .map(([a, at]): Action[] => [{ type: 'shutdown' }, restart(a, at)]),
      weight: 1,
    },
  )
  .map((a) => (Array.isArray(a) ? a : [a as Action]));

export type Initial = {
  autostart: boolean;
  /** The first server's planted kill point. */
  killAt?: KillAt | undefined;
  behaviours: Array<{ codonId: string; behaviour: Behaviour }>;
};

export const initialArb: fc.Arbitrary<Initial> = fc.record({
  autostart: fc.boolean(),
  killAt,
  behaviours: fc.array(fc.record({ codonId: codon, behaviour }), { maxLength: 2 }),
});

export function commandsArb(maxCommands: number) {
  return fc.commands([stepArb.map((actions) => new StepCommand(...actions))], {
    maxCommands,
  });
}

/**
 * One sequence: a fresh execution directory, the server started (with the initial behaviours
 * queued), then the commands; everything is ended afterwards, whatever happened.
 */
export async function runSequence(
  initial: Initial,
  cmds: Iterable<fc.AsyncCommand<ModelBox, Harness>>,
  options: HarnessOptions = {},
): Promise<void> {
  const h = await Harness.create(options);
  try {
    await fc.asyncModelRun(async () => {
      const box: ModelBox = { state: initialModel() };
      for (const b of initial.behaviours) {
        await new StepCommand({ type: 'behaviour', ...b }).run(box, h);
      }
      await new StepCommand(restart(initial.autostart, initial.killAt)).run(box, h);
      return { model: box, real: h };
    }, cmds);
  } finally {
    await h.dispose();
  }
}

export function sequenceProperty(maxCommands: number, options: HarnessOptions = {}) {
  return fc.asyncProperty(initialArb, commandsArb(maxCommands), (initial, cmds) =>
    runSequence(initial, cmds, options),
  );
}
