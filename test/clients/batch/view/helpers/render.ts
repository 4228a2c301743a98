import { render } from 'ink-testing-library';
import React from 'react';
import type { BatchSummary } from '../../../../../src/clients/batch/summary-schema.ts';
import type { BatchView } from '../../../../../src/clients/batch/view/batch-keys.ts';
import { BatchTable } from '../../../../../src/clients/batch/view/batch-table.ts';

import { frameTools } from '../../../tui/helpers/render.ts';

export { KEYS } from '../../../tui/helpers/render.ts';

export type RenderedTable = ReturnType<typeof render> & {
  frame(): string;
  /** Polls the frame until `predicate` holds; fails with the last frame after `timeoutMs`. */
  waitFor(predicate: string | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  press(...keys: string[]): Promise<void>;
  /** Shows another summary, as the runner's next write. */
  update(summary: BatchSummary): void;
  opened: { jobId: string; url: string }[];
  /** Times q or Ctrl-C asked the batch to stop. */
  stops(): number;
};

/** The batch table under ink-testing-library at a fixed size; Enter and q are recorded, not acted on. */
export function renderTable(
  summary: BatchSummary | undefined,
  options: { width?: number; height?: number; color?: boolean; initialView?: BatchView } = {},
): RenderedTable {
  const opened: { jobId: string; url: string }[] = [];
  const counters = { stops: 0 };
  const element = (s: BatchSummary | undefined) =>
    React.createElement(BatchTable, {
      summary: s,
      size: { width: options.width ?? 100, height: options.height ?? 20 },
      color: options.color ?? false,
      ...(options.initialView ? { initialView: options.initialView } : {}),
      onOpen: (jobId: string, url: string) => opened.push({ jobId, url }),
      onStop: () => {
        counters.stops += 1;
      },
    });
  const instance = render(element(summary));
  return Object.assign(instance, {
    ...frameTools(instance),
    update: (s: BatchSummary) => instance.rerender(element(s)),
    opened,
    stops: () => counters.stops,
  });
}
