import { EVENT_TYPES, isEventType } from '../core/protocol/events.ts';
import { closest } from '../core/validation/suggest.ts';
import type { PathSegment, ProblemDraft } from './problems.ts';
import type { ActionParts } from './salvage-sentinel.ts';
import type { SentinelDefinition, SentinelOutput, Trigger } from './sentinel-schema.ts';
import { checkActionVariable } from './templates/action-variables.ts';
import { checkVariable } from './templates/prompt-variables.ts';
import { parseTemplate } from './templates/template.ts';

/**
 * What the checks read: a parsed definition, or the valid parts of one that failed its schema
 * (salvage-sentinel.ts). An undefined trigger or output is invalid: the checks that need it stay
 * silent; an undefined action (invalid) is skipped, the others keep their place in the list.
 */
type Checked = {
  trigger?: Trigger;
  output?: SentinelOutput;
  actions?: ReadonlyArray<ActionParts | undefined>;
};

/**
 * Checks of a sentinel definition beyond its schema. An event type the protocol does not know is a
 * warning, not an error: the sentinel still loads, it just never fires on that type. So is an
 * action's output field the output schema does not declare. An action whose `when` does not fit
 * the output type, or whose text template cannot be parsed, is an error (one per template problem).
 */
export function checkSentinelDefinition(definition: Checked, path: PathSegment[]): ProblemDraft[] {
  const trigger = definition.trigger === undefined ? [] : checkTrigger(definition.trigger, path);
  return [...trigger, ...checkActions(definition, path)];
}

function checkTrigger(trigger: Trigger, path: PathSegment[]): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
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

function checkActions({ output, actions = [] }: Checked, path: PathSegment[]): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  // An invalid output (type unknown): nothing is said about `when`, and {{output.FIELD}} may be right.
  const known = output !== undefined;
  const structured = output?.type !== 'text';
  const fields = output?.type === 'structured' ? declaredFields(output.schema) : undefined;
  const unknownField = (name: string, at: PathSegment[], what: string) => {
    if (fields === undefined || fields.includes(name)) return;
    const guess = closest(name, fields);
    drafts.push({
      code: 'UNKNOWN_OUTPUT_FIELD',
      severity: 'warning',
      path: at,
      message: `"${name}" is not a property of the output schema, so ${what}.`,
      hint:
        guess === undefined
          ? `The schema's properties: ${fields.join(', ') || '(none)'}.`
          : `Did you mean "${guess}"?`,
    });
  };
  for (const [i, action] of actions.entries()) {
    if (action === undefined) continue;
    const at = [...path, 'actions', i];
    const { when } = action;
    if (known && Array.isArray(when)) {
      if (!structured) {
        drafts.push({
          code: 'ACTION_WHEN_MISMATCH',
          path: [...at, 'when'],
          message: `Action ${i + 1} tests fields of the output, but this sentinel's output is text.`,
          hint: 'Write `when: { regex: "^WARN" }` for text output, or give the sentinel `output: { type: structured, schema: ... }`.',
        });
      } else {
        for (const [j, condition] of when.entries())
          unknownField(
            condition.path.split('.')[0] ?? '',
            [...at, 'when', j, 'path'],
            'this condition never holds',
          );
      }
    } else if (known && structured && when !== undefined) {
      drafts.push({
        code: 'ACTION_WHEN_MISMATCH',
        path: [...at, 'when'],
        message: `Action ${i + 1} tests text with a regex, but this sentinel's output is structured.`,
        hint: 'Write conditions on its fields, e.g. `when: [{ path: repeating, op: equals, value: true }]`.',
      });
    }
    if (action.text === undefined) continue;
    const parsed = parseTemplate(action.text, checkActionVariable(structured));
    // The placeholders that parsed are checked too, so one problem of a text does not hide another.
    if (!parsed.ok) {
      for (const error of parsed.errors) {
        drafts.push({
          code: 'INVALID_TEMPLATE',
          path: [...at, 'text'],
          message: `Action ${i + 1}'s text, line ${error.line}, column ${error.column}: ${error.message}.`,
          hint: 'Placeholders: {{output}}, {{output.FIELD}} (structured output), {{sentinel.id}}, {{codon.id}}, {{codon.name}}, {{triggerNumber}}; write "\\{{" for a literal "{{".',
        });
      }
    }
    for (const name of parsed.ok ? parsed.template.names : parsed.names) {
      const [root, field] = name.split('.');
      if (root === 'output' && field !== undefined)
        unknownField(field, [...at, 'text'], `{{${name}}} fails to render when the output lacks it`);
    }
  }
  return drafts;
}

/** The top-level properties a JSON Schema declares, or undefined when it leaves them open. */
function declaredFields(schema: Record<string, unknown>): string[] | undefined {
  const { properties } = schema;
  if (typeof properties !== 'object' || properties === null) return undefined;
  return Object.keys(properties);
}

/**
 * The prompt templates (their text, read from their files when they have one) checked as the engine
 * parses them when the codon starts: a template that does not parse would leave the codon without
 * the sentinel, so it is an error here, one per problem.
 */
export function checkPromptTemplates(
  definition: Pick<SentinelDefinition, 'systemPrompt' | 'userPrompt' | 'output'>,
  texts: { systemPrompt?: string | undefined; userPrompt: string },
  path: PathSegment[],
): ProblemDraft[] {
  const check = checkVariable({ structured: definition.output.type === 'structured' });
  const drafts: ProblemDraft[] = [];
  for (const field of ['systemPrompt', 'userPrompt'] as const) {
    const text = texts[field];
    const source = definition[field];
    if (text === undefined || source === undefined) continue;
    const parsed = parseTemplate(text, check);
    if (parsed.ok) continue;
    const file = typeof source === 'string' ? undefined : source.file;
    for (const error of parsed.errors) {
      drafts.push({
        code: 'INVALID_TEMPLATE',
        path: file === undefined ? [...path, field] : [...path, field, 'file'],
        message: `The ${field}${file === undefined ? '' : ` (${file})`}, line ${error.line}, column ${error.column}: ${error.message}.`,
        hint: 'The placeholders are listed in examples/sentinels/README.md ("Prompt templates"); write "\\{{" for a literal "{{".',
      });
    }
  }
  return drafts;
}
