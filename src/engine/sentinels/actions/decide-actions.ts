import type { SentinelAction } from '../../../plan/index.ts';
import {
  type ActionContext,
  actionLookup,
  checkActionVariable,
} from '../../../plan/templates/action-variables.ts';
import {
  formatTemplateError,
  parseTemplate,
  renderTemplate,
  type Template,
} from '../../../plan/templates/template.ts';
import { compileCondition } from '../trigger-match.ts';

/**
 * The pure core of sentinel actions: which of a sentinel's actions an output calls for, within its
 * guards. No I/O: the shell (take-actions.ts) announces each decision and carries it out.
 */
export type ActionKind = SentinelAction['do'];
export type Output = string | Record<string, unknown>;

export type CompiledAction = {
  kind: ActionKind;
  /** The output meets `when`. */
  holds(output: Output): boolean;
  /** What `when` says, for sentinel.action's reason: `repeating equals true`. */
  condition: string;
  text: Template | undefined;
  /** `when` must have held this many times in the codon run. */
  after: number;
  /** redo: most redos of the codon by this action. */
  max: number | undefined;
  /** comment: where in the codon's diff. */
  comment?: CommentPlace;
};

export type CommentPlace =
  Extract<SentinelAction, { do: 'comment' }> extends infer C
    ? C extends { file: string; lines: infer L; side: infer S }
      ? { file: string; lines: L; side: S }
      : never
    : never;

/** halt, rollback and redo end the codon's run: nothing more is done in it after one. */
export const ENDS_RUN: ReadonlySet<ActionKind> = new Set(['halt', 'rollback', 'redo']);

export function compileActions(
  actions: readonly SentinelAction[],
  structured: boolean,
): { ok: true; actions: CompiledAction[] } | { ok: false; message: string } {
  const compiled: CompiledAction[] = [];
  for (const [i, action] of actions.entries()) {
    let text: Template | undefined;
    if ('text' in action && action.text !== undefined) {
      const parsed = parseTemplate(action.text, checkActionVariable(structured));
      if (!parsed.ok) return { ok: false, message: formatTemplateError(parsed.error, `actions[${i}].text`) };
      text = parsed.template;
    }
    compiled.push({
      kind: action.do,
      ...compileWhen(action.when),
      text,
      after: action.after ?? 1,
      max: action.do === 'redo' ? action.max : undefined,
      ...(action.do === 'comment'
        ? { comment: { file: action.file, lines: action.lines, side: action.side } }
        : {}),
    });
  }
  return { ok: true, actions: compiled };
}

function compileWhen(when: SentinelAction['when']): Pick<CompiledAction, 'holds' | 'condition'> {
  if (!Array.isArray(when)) {
    const pattern = new RegExp(when.regex, when.flags ?? '');
    return { holds: (o) => typeof o === 'string' && pattern.test(o), condition: `text matches ${pattern}` };
  }
  const tests = when.map(compileCondition);
  return {
    holds: (o) => typeof o === 'object' && tests.every((test) => test(o)),
    condition: when.map((c) => `${c.path} ${c.op} ${JSON.stringify(c.value)}`).join(' and '),
  };
}

/** What the guards remember over one codon run (one sentinel load). */
export type RunGuards = {
  /** Actions taken (announced, in a dry run) in this run. */
  taken: number;
  /** When the last message was taken (ms), for the cooldown. */
  lastMessageAt: number | undefined;
  /** Per action: how many outputs met its `when` in this run. */
  held: readonly number[];
  /** A halt, rollback or redo was taken. */
  ended: boolean;
};

export function freshGuards(actionCount: number): RunGuards {
  return { taken: 0, lastMessageAt: undefined, held: new Array(actionCount).fill(0), ended: false };
}

export type Limits = { maxActions: number; cooldownMs: number };

/**
 * An action whose `when` held (as often as `after` asks) but that a guard kept back, and which one.
 * With the decisions, in the actions' order (`index`): an action held back because one before it
 * ended the run comes after that one.
 */
export type HeldBack = { index: number; kind: ActionKind; why: string };

export type Decision = {
  index: number;
  kind: ActionKind;
  /** What matched, e.g. `repeating equals true (3 times)`. */
  reason: string;
} & ({ text?: string } | { error: string });

/**
 * The actions one output calls for, in declaration order, and the guards after it. An action is
 * taken when its `when` holds (for the `after`-th time or later in the run), fewer than
 * `maxActions` were taken, a message waits out the cooldown since the previous message, a redo has
 * redos left (`redosDone`: this action's redos of the codon so far), and no earlier action ended the
 * run. A text that cannot be rendered is a decision with an `error` (not counted as taken).
 */
export function decideActions(
  actions: readonly CompiledAction[],
  context: ActionContext,
  guards: RunGuards,
  limits: Limits,
  now: number,
  redosDone: (index: number) => number,
): { decisions: Decision[]; guards: RunGuards; heldBack: HeldBack[] } {
  const held = [...guards.held];
  let { taken, lastMessageAt, ended } = guards;
  const decisions: Decision[] = [];
  const heldBack: HeldBack[] = [];
  const hold = (index: number, kind: ActionKind, why: string) => heldBack.push({ index, kind, why });
  /** The action of this output that ended the run, if one did. */
  let endedBy: ActionKind | undefined;
  for (const [index, action] of actions.entries()) {
    if (!action.holds(context.output)) continue;
    const times = (held[index] ?? 0) + 1;
    held[index] = times;
    if (times < action.after) continue;
    if (ended) {
      hold(
        index,
        action.kind,
        endedBy
          ? `the ${endedBy} on this output ends the codon's run`
          : "an earlier action of this sentinel ended the codon's run",
      );
      continue;
    }
    if (taken >= limits.maxActions) {
      hold(index, action.kind, `maxActions (${limits.maxActions}) reached in this codon's run`);
      continue;
    }
    const message = action.kind === 'message';
    if (message && lastMessageAt !== undefined && now - lastMessageAt < limits.cooldownMs) {
      hold(
        index,
        action.kind,
        `cooldown: ${Math.ceil((limits.cooldownMs - (now - lastMessageAt)) / 1000)} s left`,
      );
      continue;
    }
    if (action.max !== undefined && redosDone(index) >= action.max) {
      hold(index, action.kind, `its max (${action.max}) redos of this codon were taken`);
      continue;
    }
    const reason = action.after > 1 ? `${action.condition} (${times} times)` : action.condition;
    const decision = { index, kind: action.kind, reason };
    if (action.text) {
      const rendered = renderTemplate(action.text, actionLookup(context));
      if (!rendered.ok) {
        decisions.push({ ...decision, error: formatTemplateError(rendered.error, `actions[${index}].text`) });
        continue;
      }
      decisions.push({ ...decision, text: rendered.text });
    } else decisions.push(decision);
    taken++;
    if (message) lastMessageAt = now;
    if (ENDS_RUN.has(action.kind)) {
      ended = true;
      endedBy = action.kind;
    }
  }
  return { decisions, guards: { taken, lastMessageAt, held, ended }, heldBack };
}
