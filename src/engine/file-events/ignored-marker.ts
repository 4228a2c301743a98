import {
  answered,
  arrive,
  type CheckAnswer,
  type FileUpdate,
  INITIAL_MARKER,
  type Step,
} from './ignored-batch.ts';

export type IgnoredMarker = {
  /** A file.updated from the watcher: published once its path is checked, after every earlier one. */
  push(event: FileUpdate): void;
  /** Resolves once every event pushed so far is published (or its publishing failed). */
  drained(): Promise<void>;
};

/**
 * Marks file.updated events `ignored: true` when the checkpoint store leaves their file out
 * (docs/protocol.md#protocol-extensions), one check for each batch of events that arrived while the
 * previous check ran. A failed check lets its events through unmarked; `onCheckFailed` hears the
 * first failure of a spell of them.
 */
export function createIgnoredMarker(options: {
  check: (paths: readonly string[]) => Promise<ReadonlySet<string>>;
  publish: (event: FileUpdate) => Promise<unknown>;
  onCheckFailed: (error: unknown) => void;
  onPublishFailed: (error: unknown) => void;
}): IgnoredMarker {
  let state = INITIAL_MARKER;
  let idle: Promise<void> = Promise.resolve();
  let settle: (() => void) | undefined;

  function apply(step: Step, error?: unknown): void {
    state = step.state;
    if (step.logFailure) options.onCheckFailed(error);
    // Called back to back in one turn: the bus keeps their order.
    for (const event of step.emit) publish(event);
    if (step.check) run(step.check);
    else if (state.phase === 'idle') {
      settle?.();
      settle = undefined;
    }
  }

  function publish(event: FileUpdate): void {
    try {
      options.publish(event).catch(options.onPublishFailed);
    } catch (error) {
      options.onPublishFailed(error);
    }
  }

  function run(paths: readonly string[]): void {
    Promise.resolve()
      .then(() => options.check(paths))
      .then(
        (ignored) => apply(answered(state, { ok: true, ignored })),
        (error: unknown) => apply(answered(state, { ok: false } satisfies CheckAnswer), error),
      );
  }

  return {
    push(event) {
      if (state.phase === 'idle')
        idle = new Promise((resolve) => {
          settle = resolve;
        });
      apply(arrive(state, event));
    },
    drained: () => idle,
  };
}
