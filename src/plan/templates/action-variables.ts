import { valueAt } from './event-path.ts';
import { VALUE_STRING_LIMIT } from './prompt-variables.ts';
import type { CheckName, Lookup } from './template.ts';

/**
 * The variables of an action's `text` template (a message, a redo's addition to the prompt):
 *
 * | Variable          | Value                                                                 |
 * | ----------------- | --------------------------------------------------------------------- |
 * | `output`          | the output: the text, or the structured object as compact JSON        |
 * | `output.FIELD`    | a field of structured output (dotted: `output.findings.0.file`)       |
 * | `sentinel.id`     | the sentinel                                                          |
 * | `codon.id`, `codon.name` | the codon watched                                              |
 * | `triggerNumber`   | the number of the call whose output this is                          |
 *
 * Strings render as they are, other values as JSON; a field the output lacks fails the render (the
 * action is then a `sentinel.error` action-failed).
 */
export type ActionContext = {
  output: string | Record<string, unknown>;
  sentinelId: string;
  codon: { id: string; name: string };
  triggerNumber: number;
};

export const ACTION_VARIABLES = [
  'output',
  'output.FIELD',
  'sentinel.id',
  'codon.id',
  'codon.name',
  'triggerNumber',
];

/** Load-time check of a placeholder in an action text; `structured`: the sentinel's output is an object. */
export function checkActionVariable(structured: boolean): CheckName {
  return (path) => {
    const [root, second, ...rest] = path;
    if (root === 'output') {
      if (second === undefined || structured) return undefined;
      return 'output has fields only for sentinels with structured output; write {{output}}';
    }
    if (root === 'sentinel' && second === 'id' && rest.length === 0) return undefined;
    if (root === 'codon' && (second === 'id' || second === 'name') && rest.length === 0) return undefined;
    if (root === 'triggerNumber' && second === undefined) return undefined;
    return `unknown variable; known variables: ${ACTION_VARIABLES.join(', ')}`;
  };
}

export function actionLookup(context: ActionContext): Lookup {
  return (path) => {
    const [root, second, ...rest] = path;
    switch (root) {
      case 'output': {
        if (second === undefined) return text(render(context.output));
        const value = valueAt(context.output, [second, ...rest]);
        return value === undefined
          ? { ok: false, message: `the output has no field ${[second, ...rest].join('.')}` }
          : text(render(value));
      }
      case 'sentinel':
        return text(context.sentinelId);
      case 'codon':
        return text(second === 'name' ? context.codon.name : context.codon.id);
      case 'triggerNumber':
        return text(String(context.triggerNumber));
    }
    return { ok: false, message: 'unknown variable' };
  };
}

function render(value: unknown): string {
  const out = typeof value === 'string' ? value : JSON.stringify(value);
  return out.length <= VALUE_STRING_LIMIT ? out : `${out.slice(0, VALUE_STRING_LIMIT)}…`;
}

const text = (value: string) => ({ ok: true as const, text: value });
