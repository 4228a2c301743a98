import type { Logger } from 'pino';
import type { EventBus } from '../../execution/journal/event-bus.ts';
import type { NotifyTarget } from '../../plan/unattended-schema.ts';
import { DEFAULT_DELIVERY, type DeliveryOptions, DeliveryQueue, type DeliveryResult } from './delivery.ts';
import { NoticeClassifier, type NoticeContext, type NotifyPayload } from './notices.ts';
import { prepareTarget } from './target.ts';

export type NotifierOptions = {
  bus: EventBus;
  logger: Logger;
  targets: readonly NotifyTarget[];
  context: Omit<NoticeContext, 'runId'>;
  delivery?: Partial<DeliveryOptions>;
};

export type Notifier = {
  /**
   * Stops watching, gives what is queued up to `graceMs` to be sent (the run-completed of an
   * --exit-when-done run), then drops the rest (each reported).
   */
  stop(graceMs?: number): Promise<void>;
};

/** How long a stopping server waits for pending notifications. */
export const DEFAULT_STOP_GRACE_MS = 3_000;

/**
 * Watches the published events and POSTs each notice a target asked for (docs/unattended.md#notifications).
 * Never in the engine's way: the bus hands events over synchronously and the notifier only queues;
 * a notice that cannot be delivered is logged and published as an `error` (severity warning, code
 * NOTIFY_FAILED), with the target shown as origin and path only.
 */
export function startNotifier(options: NotifierOptions): Notifier {
  if (options.targets.length === 0) return { stop: async () => {} };
  const { bus, context } = options;
  const log = options.logger.child({ component: 'notify' });
  const delivery = { ...DEFAULT_DELIVERY, ...options.delivery };
  const stopping = new AbortController();
  const classifier = new NoticeClassifier({ ...context, runId: bus.runId });
  /** Warnings on their way into the journal: a stop waits for them. */
  const reporting = new Set<Promise<unknown>>();

  const queues = options.targets.map((t) => {
    const target = prepareTarget(t);
    const onResult = (payload: NotifyPayload, result: DeliveryResult) => {
      const fields = { target: target.display, event: payload.event, attempts: result.attempts };
      if (result.ok) {
        log.info(fields, 'notification delivered');
        return;
      }
      log.warn({ ...fields, problem: result.problem }, 'notification not delivered');
      const published = bus
        .publish('error', {
          message: `notification ${payload.event} to ${target.display} not delivered after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'}: ${result.problem}`,
          fatal: false,
          severity: 'warning',
          code: 'NOTIFY_FAILED',
          context: payload.event,
          ...(payload.codonId ? { codon: payload.codonId } : {}),
        })
        .catch(() => {})
        .finally(() => reporting.delete(published));
      reporting.add(published);
    };
    const queue = new DeliveryQueue({
      target,
      delivery,
      stop: stopping.signal,
      userAgent: `ribosome/${context.serverVersion}`,
      onResult,
    });
    return { target, queue };
  });

  const unsubscribe = bus.subscribe((event) => {
    for (const payload of classifier.next(event)) {
      for (const { target, queue } of queues) if (target.on.has(payload.event)) queue.push(payload);
    }
  });

  const idle = () => Promise.all(queues.map(({ queue }) => queue.idle()));
  return {
    async stop(graceMs = DEFAULT_STOP_GRACE_MS) {
      unsubscribe();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([idle(), late]);
      clearTimeout(timer);
      stopping.abort();
      await idle();
      await Promise.all(reporting);
    },
  };
}
