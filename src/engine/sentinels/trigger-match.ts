import type { OutputCondition, TriggerCondition } from '../../plan/index.ts';
import { parseEventPath, valueAt } from '../../plan/templates/event-path.ts';

/**
 * Trigger conditions compiled once into predicates (paths split, regular expressions built), so
 * matching an event costs a few property reads per condition. An event is the protocol envelope
 * `{ id, timestamp, type, data }`; paths start at it (`data.toolName`, `type`).
 */
export type EventLike = { type: string; data: unknown };
export type EventPredicate = (event: EventLike) => boolean;

type Scalar = string | number | boolean | null;

/**
 * One condition, on an event (a trigger) or on a sentinel's structured output (an action): paths
 * start at the value given. A missing field never matches, whatever the operator (notEquals included).
 */
export function compileCondition(condition: TriggerCondition | OutputCondition): (root: unknown) => boolean {
  const path = parseEventPath(condition.path);
  const at = (root: unknown) => valueAt(root, path);
  switch (condition.op) {
    case 'equals': {
      const expected = condition.value;
      return (e) => {
        const v = at(e);
        return v !== undefined && v === expected;
      };
    }
    case 'notEquals': {
      const expected = condition.value;
      return (e) => {
        const v = at(e);
        return v !== undefined && v !== expected;
      };
    }
    case 'in': {
      const allowed = new Set<Scalar>(condition.value);
      return (e) => {
        const v = at(e);
        return isScalar(v) && allowed.has(v);
      };
    }
    case 'contains': {
      const needle = condition.value;
      return (e) => {
        const v = at(e);
        if (typeof v === 'string') return typeof needle === 'string' && v.includes(needle);
        if (Array.isArray(v)) return v.includes(needle);
        return false;
      };
    }
    case 'regex': {
      const pattern = new RegExp(condition.value, condition.flags ?? '');
      return (e) => {
        const v = at(e);
        return typeof v === 'string' && pattern.test(v);
      };
    }
    case 'gt': {
      const bound = condition.value;
      return (e) => {
        const v = at(e);
        return typeof v === 'number' && v > bound;
      };
    }
    case 'lt': {
      const bound = condition.value;
      return (e) => {
        const v = at(e);
        return typeof v === 'number' && v < bound;
      };
    }
  }
}

/** All conditions hold (logical AND); no conditions: every event of the types matches. */
export function compileStep(eventTypes: readonly string[], conditions: readonly TriggerCondition[]) {
  const types = new Set(eventTypes);
  const predicates = conditions.map(compileCondition);
  return (event: EventLike): boolean => {
    if (!types.has(event.type)) return false;
    for (const p of predicates) if (!p(event)) return false;
    return true;
  };
}

function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}
