import { z } from 'zod';
import { issueParams } from './primitives.ts';

/**
 * A test on one field, the same operators wherever a sentinel tests something: a trigger on an
 * event's fields, an action on the sentinel's own structured output. Only the path's meaning differs.
 */

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export function isValidRegex(source: string, flags = ''): boolean {
  try {
    new RegExp(source, flags);
    return true;
  } catch {
    return false;
  }
}

/** A JavaScript regular expression and its flags, refused when `new RegExp` would throw. */
export const RegexFlags = z
  .string()
  .regex(/^[imsu]*$/)
  .optional()
  .describe('Regular expression flags: any of i, m, s, u.');

export const INVALID_REGEX = {
  message: 'Not a valid JavaScript regular expression.',
  ...issueParams(
    'INVALID_REGEX',
    'Fix the pattern; test it with new RegExp(...) in Node. Escape "\\" as "\\\\" in YAML double quotes.',
  ),
};

/** The condition union over paths of one kind (`Path` says what they point into). */
export function conditionSchema<P extends z.ZodType<string>>(Path: P) {
  return z.discriminatedUnion('op', [
    z.strictObject({ path: Path, op: z.literal('equals'), value: Scalar.describe('Value to compare with.') }),
    z.strictObject({
      path: Path,
      op: z.literal('notEquals'),
      value: Scalar.describe('Value to compare with.'),
    }),
    z.strictObject({
      path: Path,
      op: z.literal('in'),
      value: z.array(Scalar).min(1).describe('Matches when the value equals one of these.'),
    }),
    z.strictObject({
      path: Path,
      op: z.literal('contains'),
      value: Scalar.describe('Substring of a string value, or an element of an array value.'),
    }),
    z
      .strictObject({
        path: Path,
        op: z.literal('regex'),
        value: z.string().min(1).describe('JavaScript regular expression tested against a string value.'),
        flags: RegexFlags,
      })
      .refine((c) => isValidRegex(c.value, c.flags), { ...INVALID_REGEX, path: ['value'] }),
    z.strictObject({
      path: Path,
      op: z.literal('gt'),
      value: z.number().describe('Matches a greater number.'),
    }),
    z.strictObject({
      path: Path,
      op: z.literal('lt'),
      value: z.number().describe('Matches a smaller number.'),
    }),
  ]);
}
