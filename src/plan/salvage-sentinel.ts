import { isRecord, salvageObject, valid } from './salvage-object.ts';
import { ActionWhen, SentinelAction } from './sentinel-actions-schema.ts';
import { SentinelOutput, Trigger } from './sentinel-schema.ts';

/**
 * The valid parts of a sentinel definition that failed its schema, so the checks beyond the schema
 * (check-sentinel.ts) report their problems in the same pass: an action whose `when` does not fit the
 * output, a broken text template. An undefined part is invalid and its checks stay silent.
 */
export type SentinelParts = {
  trigger?: Trigger;
  output?: SentinelOutput;
  /** By position in the file; an action that stays invalid without its invalid fields is undefined. */
  actions: Array<ActionParts | undefined>;
};

/** What the checks read of an action: its `when` and text, each absent when invalid. */
export type ActionParts = { when?: ActionWhen; text?: string | undefined };

export function salvageSentinel(data: unknown): SentinelParts {
  if (!isRecord(data)) return { actions: [] };
  const trigger = valid(Trigger, data.trigger);
  // An absent output is text (the default); an invalid one leaves the output type unknown.
  const output = valid(SentinelOutput, data.output);
  return {
    ...(trigger === undefined ? {} : { trigger }),
    ...(output === undefined ? {} : { output }),
    actions: Array.isArray(data.actions) ? data.actions.map(salvageAction) : [],
  };
}

/**
 * The action, or what is left of it without its invalid fields (a halt's stray `text`, a redo's bad
 * `max`); with an invalid `when` (a regex that does not compile), its text is still checked.
 */
function salvageAction(data: unknown): ActionParts | undefined {
  const whole = SentinelAction.safeParse(data);
  if (whole.success) return whole.data;
  if (!isRecord(data)) return undefined;
  const branch = SentinelAction.options.find((option) => option.shape.do.value === data.do);
  if (branch === undefined) return undefined;
  const salvaged = salvageObject(branch, data)?.value;
  if (salvaged !== undefined) return salvaged;
  const when = valid(ActionWhen, data.when);
  const text = 'text' in branch.shape && typeof data.text === 'string' ? data.text : undefined;
  return {
    ...(when === undefined ? {} : { when }),
    ...(text === undefined ? {} : { text }),
  };
}
