import { SERVER_VERSION } from '../../core/version.ts';
import type { EngineDeps } from '../../engine/ports.ts';
import type { NotifyTarget } from '../../plan/unattended-schema.ts';
import { startNotifier } from './notifier.ts';
import { previousRun } from './previous-run.ts';
import { mergeTargets } from './target.ts';

/**
 * The notifier as a companion of the server: it watches from before the engine starts, and is
 * stopped after the engine, so the run's last notices (run-completed, run-failed) get their chance.
 */
export function notifierCompanion(options: {
  plan: { name: string; notify: readonly NotifyTarget[] };
  configTargets: readonly NotifyTarget[];
  /** `--approve-all`: every approval wait ends at once, so approval-needed calls nobody. */
  approveAll?: boolean;
}) {
  return async (deps: EngineDeps) => {
    const targets = mergeTargets(options.plan.notify, options.configTargets);
    // Read only when someone listens: it replays the execution's state.
    const previous = targets.length > 0 ? previousRun(deps.db) : undefined;
    const notifier = startNotifier({
      bus: deps.bus,
      logger: deps.logger,
      targets,
      context: {
        plan: options.plan.name,
        serverVersion: SERVER_VERSION,
        executionPath: deps.layout.executionDir,
        ...(options.approveAll ? { approveAll: true } : {}),
        ...(previous ? { previousRun: previous } : {}),
      },
    });
    return { stop: () => notifier.stop() };
  };
}
