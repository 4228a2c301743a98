import {
  arrayOf,
  type Check,
  isInteger,
  isNumber,
  isRecord,
  isString,
  object,
  optional,
  recordOf,
} from '../../../core/validation/shape.ts';
import type { BatchFleet } from './fleet-schema.ts';

const fleetJob = object({
  id: isString,
  index: isInteger,
  state: isString,
  execution: isString,
  url: optional(isString),
  axes: recordOf(isString),
  metrics: optional(isRecord),
});

const fleetShape = object({
  name: isString,
  dir: isString,
  state: isString,
  spentUsd: isNumber,
  counts: recordOf(isNumber),
  jobs: arrayOf(fleetJob),
});

/**
 * `/config.json`'s batch as the page takes it: the fields it reads everywhere checked by hand, the
 * rest trusted. The page's own server made it with BatchFleet (fleet-schema.ts), and that schema
 * would bring zod into the page's bundle.
 */
export const isBatchFleet = fleetShape as Check<unknown> as Check<BatchFleet>;
