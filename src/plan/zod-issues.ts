import { closest } from '../core/validation/suggest.ts';
import {
  describeAt,
  type Issue,
  keysAt,
  type NumberRange,
  numberRangeAt,
  pickBranch,
  rangeText,
  rootExpected,
  type Schema,
  toSegment,
  valueAt,
} from '../core/validation/zod-walk.ts';
import { formatRules } from './primitives.ts';
import { type PathSegment, PlanProblemCode, type ProblemDraft } from './problems.ts';

/**
 * Turns zod issues into problems a person can act on: one problem per unknown key, the branch of a
 * union the user evidently meant, and hints drawn from the schema's own `.describe()` texts.
 */

export function issuesToDrafts(issues: readonly Issue[], root: Schema, input: unknown): ProblemDraft[] {
  const drafts: ProblemDraft[] = [];
  for (const issue of issues) visit(issue, [], undefined);
  return drafts;

  /** `key` is set inside an invalid_key issue: the value being judged is then the map key itself. */
  function visit(issue: Issue, prefix: PathSegment[], key: string | undefined): void {
    const path = [...prefix, ...issue.path.map(toSegment)];
    const value = key ?? valueAt(input, path);
    const pointAt = key === undefined ? 'value' : 'key';
    const name = subject(path, key !== undefined);
    const add = (code: PlanProblemCode, message: string, hint: string, at: PathSegment[] = path) =>
      drafts.push({ code, path: at, message, hint, pointAt });

    switch (issue.code) {
      case 'invalid_type': {
        if (value === undefined && key === undefined) {
          const field = path.at(-1);
          add(
            'MISSING_FIELD',
            `Missing required field ${quote(field)}.`,
            addHint(field, describeAt(root, path)),
          );
        } else if (path.length === 0) {
          add(
            'WRONG_TYPE',
            `The file must be a mapping of fields, not ${kindOf(value)}.`,
            'Write `field: value` lines.',
          );
        } else {
          // 1e400 parses as Infinity: a number, though not one a field takes (not "a number (null)").
          const finite = typeof value === 'number' && !Number.isFinite(value) ? 'a finite number' : undefined;
          add(
            'WRONG_TYPE',
            `${name} must be ${finite ?? expectedText(issue.expected)}, not ${kindOf(value)}.`,
            typeHint(issue.expected, value, numberRangeAt(root, path)),
          );
        }
        return;
      }
      case 'unrecognized_keys': {
        const allowed = keysAt(root, path, value);
        for (const unknown of issue.keys) {
          const guess = closest(
            unknown,
            allowed.filter((k) => k !== unknown),
          );
          const list = allowed.length > 0 ? ` Fields allowed here: ${allowed.join(', ')}.` : '';
          drafts.push({
            code: 'UNKNOWN_FIELD',
            path: [...path, unknown],
            pointAt: 'key',
            message: `Unknown field ${quote(unknown)}.`,
            hint: (guess === undefined ? 'Remove it.' : `Did you mean ${quote(guess)}?`) + list,
          });
        }
        return;
      }
      case 'invalid_union': {
        if (issue.discriminator !== undefined && issue.errors.length === 0) {
          const options = ('options' in issue ? (issue.options ?? []) : []).map(String);
          if (value === undefined) {
            add(
              'MISSING_FIELD',
              `Missing required field ${quote(issue.discriminator)}.`,
              `Set it to one of: ${options.join(', ')}.`,
            );
          } else {
            add(
              'INVALID_VALUE',
              `${show(value)} is not a valid ${quote(issue.discriminator)}.`,
              oneOfHint(value, options),
            );
          }
          return;
        }
        const branch = pickBranch(issue.errors, value);
        if (branch === undefined) {
          const expected = [...new Set(issue.errors.flatMap(rootExpected))].map(expectedText);
          add(
            'WRONG_TYPE',
            `${name} must be ${expected.join(' or ')}, not ${kindOf(value)}.`,
            describeHint(root, path),
          );
          return;
        }
        for (const inner of branch) visit(inner, path, key);
        return;
      }
      case 'invalid_value': {
        const options = issue.values.map(String);
        add('INVALID_VALUE', `${show(value)} is not allowed for ${name}.`, oneOfHint(value, options));
        return;
      }
      case 'too_small':
      case 'too_big': {
        const small = issue.code === 'too_small';
        const bound = Number(small ? issue.minimum : issue.maximum);
        const exclusive = issue.inclusive === false;
        if (issue.origin === 'string') {
          if (small && bound <= 1)
            add('INVALID_VALUE', `${name} must not be empty.`, 'Write a non-empty value.');
          else
            add(
              'INVALID_VALUE',
              `${name} must have ${small ? 'at least' : 'at most'} ${bound} characters.`,
              describeHint(root, path),
            );
        } else if (issue.origin === 'array') {
          const items = `${bound} item${bound === 1 ? '' : 's'}`;
          const relation = small ? 'at least' : 'at most';
          add('INVALID_VALUE', `${name} must have ${relation} ${items}.`, `Give ${relation} ${items}.`);
        } else {
          const relation = `${small ? 'greater than' : 'less than'}${exclusive ? '' : ' or equal to'} ${bound}`;
          const description = describeAt(root, path);
          // The field's whole range, so the hint never names a value the other bound refuses.
          const range = numberRangeAt(root, path);
          const use = range === undefined ? `a number ${relation}` : rangeText(range);
          const hint = `Use ${use}.${description === undefined ? '' : ` ${description}`}`;
          add('INVALID_VALUE', `${name} must be ${relation}, not ${show(value)}.`, hint);
        }
        return;
      }
      case 'invalid_format': {
        const rule = issue.pattern === undefined ? undefined : formatRules.get(issue.pattern);
        if (rule !== undefined) add(rule.code, `${show(value)} is not ${rule.what}.`, rule.hint);
        else
          add('INVALID_VALUE', `${show(value)} has the wrong format for ${name}.`, describeHint(root, path));
        return;
      }
      case 'invalid_key': {
        for (const inner of issue.issues) visit(inner, path, String(path.at(-1)));
        return;
      }
      case 'custom': {
        const params: Record<string, unknown> = issue.params ?? {};
        const code = PlanProblemCode.safeParse(params.code);
        const hint = typeof params.hint === 'string' ? params.hint : describeHint(root, path);
        add(code.success ? code.data : 'INVALID_VALUE', issue.message, hint);
        return;
      }
      default:
        add('INVALID_VALUE', `${name}: ${issue.message}.`, describeHint(root, path));
    }
  }
}

function subject(path: readonly PathSegment[], isKey: boolean): string {
  const last = path.at(-1);
  if (isKey) return `Key ${quote(last)}`;
  if (last === undefined) return 'The file';
  if (typeof last === 'number') {
    const list = path.at(-2);
    return typeof list === 'string' ? `Item ${last} of ${quote(list)}` : `Item ${last}`;
  }
  return quote(last);
}

function quote(value: unknown): string {
  return `"${String(value)}"`;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Names types the way a YAML writer sees them. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `text (${show(value)})`;
  if (typeof value === 'boolean') return `a boolean (${value})`;
  if (Number.isNaN(value)) return 'NaN (not a number)';
  if (value === Infinity) return 'Infinity (a number too large to hold: above 1.8e308)';
  if (value === -Infinity) return '-Infinity (a number too large to hold: below -1.8e308)';
  return `a ${typeof value} (${show(value)})`;
}

function expectedText(expected: string): string {
  switch (expected) {
    case 'string':
      return 'text';
    case 'number':
      return 'a number';
    case 'int':
      return 'a whole number';
    case 'boolean':
      return 'true or false';
    case 'object':
    case 'record':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'null':
      return 'null';
    default:
      return expected;
  }
}

function typeHint(expected: string, value: unknown, range: NumberRange | undefined): string {
  if (expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
    return `YAML read this as a ${typeof value}; quote it: "${String(value)}".`;
  }
  if ((expected === 'number' || expected === 'int') && range !== undefined) {
    const plain = typeof value === 'string' ? 'Write a plain number without quotes or units: ' : 'Write ';
    // The default, if any: a value the field's bounds always admit.
    const eg = range.default === undefined ? '' : `, e.g. ${range.default}`;
    return `${plain}${rangeText(range)}${eg}.`;
  }
  if ((expected === 'number' || expected === 'int') && typeof value === 'string') {
    return 'Write a plain number without quotes or units.';
  }
  switch (expected) {
    case 'array':
      return 'Write a list: one `- item` per line, or [a, b].';
    case 'object':
    case 'record':
      return 'Write a mapping: indented `key: value` lines, or {key: value}.';
    case 'boolean':
      return 'Write true or false without quotes.';
    default:
      return `Write ${expectedText(expected)}.`;
  }
}

function oneOfHint(value: unknown, options: readonly string[]): string {
  const guess = typeof value === 'string' ? closest(value, options) : undefined;
  return `${guess === undefined ? '' : `Did you mean ${quote(guess)}? `}Use one of: ${options.join(', ')}.`;
}

function addHint(field: PathSegment | undefined, description: string | undefined): string {
  return `Add ${quote(field)}${description === undefined ? '.' : `: ${description}`}`;
}

function describeHint(root: Schema, path: readonly PathSegment[]): string {
  return describeAt(root, path) ?? 'See the description of this field in schema/ for the allowed values.';
}
