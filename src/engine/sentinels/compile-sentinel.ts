import type { LoadedSentinel } from '../../plan/index.ts';
import { checkVariable } from '../../plan/templates/prompt-variables.ts';
import { formatTemplateError, parseTemplate, type Template } from '../../plan/templates/template.ts';
import { type CompiledAction, compileActions } from './actions/decide-actions.ts';
import { resolveOutputFiles } from './output-files.ts';
import { createSequenceMatcher } from './sequence-match.ts';
import { compileOutputSchema, type OutputValidator } from './structured-output.ts';
import { compileStep, type EventLike } from './trigger-match.ts';

/**
 * Everything about a sentinel that can be checked once, when its codon starts: templates parsed,
 * trigger compiled, output schema converted, output paths resolved. A failure here means the
 * sentinel does not load (a sentinel-load-failure of the codon when `failCodonOnLoadError`).
 */
export type TriggerMatcher<E extends EventLike> = {
  /**
   * The trigger this event completes, if any: the event itself (event triggers; no allocation on
   * the hot path) or the step events of a sequence.
   */
  offer(event: E): E | E[] | undefined;
};

export type CompiledSentinel = {
  definition: LoadedSentinel;
  /** A fresh matcher (a sequence keeps state, so each loaded instance gets its own). */
  newMatcher<E extends EventLike>(): TriggerMatcher<E>;
  systemPrompt: Template | undefined;
  userPrompt: Template;
  output: OutputValidator | undefined;
  files: { log?: string; last?: string };
  /** Its actions: `when` compiled, text templates parsed. */
  actions: CompiledAction[];
};

export type CompileFailure = { kind: 'template' | 'configuration'; message: string };

export function compileSentinel(
  definition: LoadedSentinel,
  outputDir: string,
): { ok: true; sentinel: CompiledSentinel } | { ok: false; failure: CompileFailure } {
  const structured = definition.output.type === 'structured';
  const check = checkVariable({ structured });
  let systemPrompt: Template | undefined;
  if (definition.systemPrompt !== undefined) {
    const parsed = parseTemplate(definition.systemPrompt, check);
    if (!parsed.ok) return templateFailure(formatTemplateError(parsed.error, 'systemPrompt'));
    systemPrompt = parsed.template;
  }
  const user = parseTemplate(definition.userPrompt, check);
  if (!user.ok) return templateFailure(formatTemplateError(user.error, 'userPrompt'));

  let output: OutputValidator | undefined;
  if (definition.output.type === 'structured') {
    const compiled = compileOutputSchema(definition.output.schema);
    if (!compiled.ok) return { ok: false, failure: { kind: 'configuration', message: compiled.message } };
    output = compiled.validator;
  }
  const actions = compileActions(definition.actions, structured);
  if (!actions.ok) return templateFailure(actions.message);
  const files = resolveOutputFiles(outputDir, definition.outputFiles);
  if (!files.ok) return { ok: false, failure: { kind: 'configuration', message: files.message } };

  const { trigger } = definition;
  const newMatcher = <E extends EventLike>(): TriggerMatcher<E> => {
    if (trigger.type === 'event') {
      const matches = compileStep(trigger.eventTypes, trigger.conditions);
      return { offer: (event) => (matches(event) ? event : undefined) };
    }
    const steps = trigger.steps.map((s) => compileStep([s.eventType], s.conditions));
    return createSequenceMatcher<E>(steps, trigger.withinEvents);
  };
  const { ok: _ok, ...paths } = files;
  return {
    ok: true,
    sentinel: {
      definition,
      newMatcher,
      systemPrompt,
      userPrompt: user.template,
      output,
      files: paths,
      actions: actions.actions,
    },
  };
}

function templateFailure(message: string): { ok: false; failure: CompileFailure } {
  return { ok: false, failure: { kind: 'template', message } };
}
