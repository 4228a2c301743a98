import { echo } from '../../core/protocol/index.ts';
import { formatPath, type PathSegment } from '../../core/validation/path.ts';
import { closest } from '../../core/validation/suggest.ts';
import {
  type Issue,
  keysAt,
  pickBranch,
  rootExpected,
  type Schema,
  toSegment,
  valueAt,
} from '../../core/validation/zod-walk.ts';

/**
 * What is wrong with a command, as INVALID_COMMAND says it: one `path: expected ..., got ...` per
 * problem, in JSON's words (the plan validator says the same facts in YAML's), e.g.
 * `data.codonId: expected a string, got a number`. Client values are repeated cut short.
 */

/** More problems than this are counted, not listed: the answer stays small whatever was sent. */
const MAX_LISTED = 5;

export function commandProblems(issues: readonly Issue[], root: Schema, input: unknown): string[] {
  const problems: string[] = [];
  for (const issue of issues) visit(issue, []);
  return problems;

  function visit(issue: Issue, prefix: PathSegment[]): void {
    const path = [...prefix, ...issue.path.map(toSegment)];
    const value = valueAt(input, path);
    const add = (text: string, at: PathSegment[] = path) => problems.push(`${where(at)}: ${text}`);
    switch (issue.code) {
      case 'invalid_type':
        add(`expected ${typeText(issue.expected)}, got ${kindOf(value)}`);
        return;
      case 'unrecognized_keys': {
        const allowed = keysAt(root, path, value);
        for (const key of issue.keys) {
          const guess = closest(
            key,
            allowed.filter((k) => k !== key),
          );
          add(`unknown field${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`, [
            ...path,
            echo(key),
          ]);
        }
        return;
      }
      case 'invalid_union': {
        const branch = pickBranch(issue.errors, value);
        if (branch === undefined) {
          const expected = [...new Set(issue.errors.flatMap(rootExpected))].map(typeText);
          add(`expected ${expected.join(' or ')}, got ${kindOf(value)}`);
        } else for (const inner of branch) visit(inner, path);
        return;
      }
      case 'invalid_value': {
        const options = issue.values.map(String);
        const guess = typeof value === 'string' ? closest(value, options) : undefined;
        const expected = options.length === 1 ? show(issue.values[0]) : `one of ${options.join(', ')}`;
        add(
          `expected ${expected}, got ${show(value)}${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`,
        );
        return;
      }
      case 'too_small':
      case 'too_big': {
        const small = issue.code === 'too_small';
        const bound = Number(small ? issue.minimum : issue.maximum);
        if (issue.origin === 'string') {
          const length = typeof value === 'string' ? value.length : 0;
          if (small && bound === 1) add(`expected a non-empty string, got ""`);
          else add(`expected ${small ? 'at least' : 'at most'} ${bound} characters, got ${length}`);
        } else if (issue.origin === 'array') {
          const length = Array.isArray(value) ? value.length : 0;
          add(`expected ${small ? 'at least' : 'at most'} ${bound} items, got ${length}`);
        } else {
          const relation = `${small ? '>' : '<'}${issue.inclusive === false ? '' : '='}`;
          add(`expected a number ${relation} ${bound}, got ${show(value)}`);
        }
        return;
      }
      case 'invalid_format':
        // A pattern given its own message names the format (`a git SHA (4-64 hex digits)`).
        add(
          `expected ${issue.format === 'regex' && !issue.message.startsWith('Invalid') ? issue.message : `a ${issue.format}`}, got ${show(value)}`,
        );
        return;
      default:
        add(issue.message);
    }
  }
}

/** `invalid codon.start: data.codonId: expected a string, got a number`, several joined by `; `. */
export function invalidCommandMessage(type: string, problems: readonly string[]): string {
  const listed = problems.slice(0, MAX_LISTED);
  const more = problems.length - listed.length;
  const head = problems.length === 1 ? `invalid ${type}` : `invalid ${type} (${problems.length} problems)`;
  return `${head}: ${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

function where(path: readonly PathSegment[]): string {
  return path.length === 0 ? 'the command' : formatPath(path);
}

/** A scalar as JSON (a long string cut short); objects and arrays only by kind: never serialized whole. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(echo(value, 60));
  if (typeof value === 'object' && value !== null) return kindOf(value);
  return kindOf(value) === 'nothing' ? 'nothing' : String(value);
}

/** Names JSON types the way a client's programmer sees them. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function typeText(expected: string): string {
  switch (expected) {
    case 'int':
      return 'an integer';
    case 'object':
    case 'record':
      return 'an object';
    case 'array':
      return 'an array';
    case 'null':
      return 'null';
    case 'undefined':
    case 'never':
      return 'nothing';
    default:
      return `a ${expected}`;
  }
}
