import { valueAt } from './event-path.ts';
import type { CheckName, Lookup } from './template.ts';

/**
 * The variables of sentinel prompt templates (system and user prompt alike):
 *
 * | Variable                 | Value                                                                 |
 * | ------------------------ | --------------------------------------------------------------------- |
 * | `events`                 | the batch, one JSON line per event: `{"type","timestamp","data"}`     |
 * | `eventCount`             | number of events in the batch                                         |
 * | `events.first`, `events.last`, `events.N` | one event (N counts from 0) as JSON                  |
 * | `events.last.type`, `events.0.data.toolName`, ... | a field of that event                        |
 * | `droppedCount`           | events dropped (queue full) since the previous call                   |
 * | `triggerNumber`          | this call's number for the sentinel: 1, 2, ...                        |
 * | `codon.id`, `codon.name`, `codon.description`, `codon.prompt` | the codon watched (description: empty when none) |
 * | `sentinel.id`, `sentinel.model` | the sentinel itself                                            |
 * | `time`                   | now, ISO 8601                                                         |
 * | `agentRoot`              | the agent root (absolute)                                             |
 * | `dataDir`                | the data directory's link in the agent root (absolute)                |
 * | `outputSchema`           | the JSON Schema of a structured sentinel's answer (structured only)   |
 *
 * Objects and arrays render as compact JSON, other values as text. Long strings are shortened (to
 * EVENT_STRING_LIMIT characters inside `events` listings, VALUE_STRING_LIMIT for a single value) so a
 * large file content cannot blow up a prompt. A field an event lacks, or an event index past the
 * batch, fails the render (`template-render-failed`).
 */
export const EVENT_STRING_LIMIT = 1_000;
export const VALUE_STRING_LIMIT = 10_000;

export type PromptEvent = { type: string; timestamp: string; data: unknown };
export type PromptContext = {
  events: readonly PromptEvent[];
  droppedCount: number;
  triggerNumber: number;
  codon: { id: string; name: string; description?: string | undefined; prompt: string };
  sentinel: { id: string; model: string };
  time: string;
  /** Where the agent works and where it reads the data directory (docs/agents.md#what-stays-inside-the-agent-root). */
  paths?: { agentRoot: string; dataDir?: string | undefined } | undefined;
  /** Present for structured sentinels. */
  outputSchema?: Record<string, unknown> | undefined;
};

const SCALARS = new Set([
  'events',
  'eventCount',
  'droppedCount',
  'triggerNumber',
  'time',
  'agentRoot',
  'dataDir',
  'outputSchema',
]);
const CODON_FIELDS = ['id', 'name', 'description', 'prompt'] as const;
const SENTINEL_FIELDS = ['id', 'model'] as const;
const EVENT_INDEX = /^(?:first|last|\d+)$/;
export const VARIABLE_NAMES = [
  'events',
  'eventCount',
  'events.first',
  'events.last',
  'events.N',
  'droppedCount',
  'triggerNumber',
  ...CODON_FIELDS.map((f) => `codon.${f}`),
  ...SENTINEL_FIELDS.map((f) => `sentinel.${f}`),
  'time',
  'agentRoot',
  'dataDir',
  'outputSchema',
];

const KNOWN = `known variables: ${VARIABLE_NAMES.join(', ')}`;

/** Load-time check of a placeholder name, for parseTemplate. */
export function checkVariable(options: { structured: boolean }): CheckName {
  return (path) => {
    const [root, second, ...rest] = path;
    if (root === 'events' && second !== undefined) {
      return EVENT_INDEX.test(second)
        ? undefined
        : `after "events." write first, last or an index (events.0.type), not "${second}"`;
    }
    if (root === 'codon' || root === 'sentinel') {
      const fields: readonly string[] = root === 'codon' ? CODON_FIELDS : SENTINEL_FIELDS;
      if (second !== undefined && rest.length === 0 && fields.includes(second)) return undefined;
      return `unknown variable; ${root} has ${fields.map((f) => `${root}.${f}`).join(', ')}`;
    }
    if (root !== undefined && second === undefined && SCALARS.has(root)) {
      if (root === 'outputSchema' && !options.structured) {
        return 'outputSchema exists only for sentinels with structured output';
      }
      return undefined;
    }
    return `unknown variable; ${KNOWN}`;
  };
}

/** Render-time values for one call. */
export function promptLookup(context: PromptContext): Lookup {
  return (path) => {
    const [root, second, ...rest] = path;
    switch (root) {
      case 'events': {
        if (second === undefined) return text(context.events.map(renderEvent).join('\n'));
        const index = second === 'first' ? 0 : second === 'last' ? context.events.length - 1 : Number(second);
        const event = context.events[index];
        if (event === undefined) {
          return missing(`the batch has ${context.events.length} event(s), so there is no events.${second}`);
        }
        if (rest.length === 0) return text(renderEvent(event));
        const value = valueAt(event, rest);
        if (value === undefined) return missing(`the ${event.type} event has no field ${rest.join('.')}`);
        return text(toText(value, VALUE_STRING_LIMIT));
      }
      case 'eventCount':
        return text(String(context.events.length));
      case 'droppedCount':
        return text(String(context.droppedCount));
      case 'triggerNumber':
        return text(String(context.triggerNumber));
      case 'time':
        return text(context.time);
      case 'agentRoot':
      case 'dataDir': {
        const value = context.paths?.[root];
        return value === undefined ? missing(`this server has no ${root}`) : text(value);
      }
      case 'outputSchema':
        return context.outputSchema === undefined
          ? missing('this sentinel has no structured output')
          : text(JSON.stringify(context.outputSchema));
      case 'codon':
        if (second === 'id' || second === 'name' || second === 'prompt') return text(context.codon[second]);
        if (second === 'description') return text(context.codon.description ?? '');
        break;
      case 'sentinel':
        if (second === 'id' || second === 'model') return text(context.sentinel[second]);
        break;
    }
    return missing('unknown variable');
  };
}

/** One event as a compact JSON line, long strings shortened (the id is left out: noise to a model). */
export function renderEvent(event: PromptEvent): string {
  return JSON.stringify(
    { type: event.type, timestamp: event.timestamp, data: event.data },
    shorten(EVENT_STRING_LIMIT),
  );
}

function toText(value: unknown, limit: number): string {
  if (typeof value === 'string') return shortenString(value, limit);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value, shorten(limit));
  return String(value);
}

function shorten(limit: number) {
  return (_key: string, value: unknown) => (typeof value === 'string' ? shortenString(value, limit) : value);
}

function shortenString(value: string, limit: number): string {
  return value.length <= limit ? value : `${value.slice(0, limit)}…[${value.length - limit} more characters]`;
}

const text = (value: string) => ({ ok: true as const, text: value });
const missing = (message: string) => ({ ok: false as const, message });
