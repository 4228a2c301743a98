import { EVENT_TYPES, isEventType } from '../protocol/events.ts';
import { closest } from '../validation/suggest.ts';
import type { PathSegment, ProblemDraft } from './problems.ts';
import type { Trigger } from './sentinel-schema.ts';

/**
 * Checks of a sentinel definition beyond its schema. An event type the protocol does not know is a
 * warning, not an error: the sentinel still loads, it just never fires on that type.
 */
export function checkSentinelDefinition(
  definition: { trigger: Trigger },
  path: PathSegment[],
): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  const { trigger } = definition;
  const named =
    trigger.type === 'event'
      ? trigger.eventTypes.map((type, i) => ({ type, at: [...path, 'trigger', 'eventTypes', i] }))
      : trigger.steps.map((step, i) => ({
          type: step.eventType,
          at: [...path, 'trigger', 'steps', i, 'eventType'],
        }));
  for (const { type, at } of named) {
    if (isEventType(type)) continue;
    const guess = closest(type, EVENT_TYPES);
    drafts.push({
      code: 'UNKNOWN_EVENT_TYPE',
      severity: 'warning',
      path: at,
      message: `"${type}" is not an event type of the protocol, so it never fires.`,
      hint:
        guess === undefined
          ? 'Use an event type such as tool.result, assistant.action or file.updated.'
          : `Did you mean "${guess}"?`,
    });
  }
  return drafts;
}
