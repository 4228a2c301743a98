import { z } from 'zod';
import { conditionSchema, INVALID_REGEX, isValidRegex, RegexFlags } from './conditions.ts';

/**
 * What a sentinel may do with its outputs (docs/sentinels.md#sentinel-actions): each output is tested against
 * the sentinel's `actions` in order; an action whose `when` holds is taken, within the guards
 * (`maxActions`, `cooldownMs`) and for real only without `dryRun`. The runtime lives in
 * src/engine/sentinels/actions/.
 */

export const DEFAULT_MAX_ACTIONS = 3;
export const DEFAULT_ACTION_COOLDOWN_MS = 30_000;
export const DEFAULT_MAX_REDOS = 1;

/** Same syntax as an event path, its own pattern so a mistake is explained as an output path. */
export const OUTPUT_PATH_PATTERN = /^[A-Za-z_$][\w$-]*(?:\.(?:[A-Za-z_$][\w$-]*|\d+))*$/;

const OutputPath = z
  .string()
  .regex(OUTPUT_PATH_PATTERN)
  .describe('Dotted path into the structured output, e.g. repeating or findings.0.severity.');

export const OutputCondition = conditionSchema(OutputPath)
  .describe('A test on one field of the structured output. A missing field never matches.')
  .meta({ id: 'OutputCondition' });
export type OutputCondition = z.infer<typeof OutputCondition>;

export const TextMatch = z
  .strictObject({
    regex: z.string().min(1).describe('JavaScript regular expression tested against the text output.'),
    flags: RegexFlags,
  })
  .refine((m) => isValidRegex(m.regex, m.flags), { ...INVALID_REGEX, path: ['regex'] })
  .describe('For text output: the text matches this regular expression.');
export type TextMatch = z.infer<typeof TextMatch>;

export const ActionWhen = z
  .union([
    z.array(OutputCondition).min(1).describe('For structured output: every condition holds (logical AND).'),
    TextMatch,
  ])
  .describe('When the action applies: conditions on structured output, or a regex on text output.');
export type ActionWhen = z.infer<typeof ActionWhen>;

const After = z
  .number()
  .int()
  .min(1)
  .max(1000)
  .optional()
  .describe(
    'Taken only once `when` has held this many times while the codon runs (this output included), e.g. 3 for "the third repeat". Default 1.',
  );
const Text = z
  .string()
  .min(1)
  .max(32_768)
  .describe(
    'Template rendered with the output: {{output}} (the text, or the object as JSON), {{output.FIELD}} (a field of structured output), {{sentinel.id}}, {{codon.id}}, {{codon.name}}, {{triggerNumber}}.',
  );

export const SentinelAction = z
  .discriminatedUnion('do', [
    z
      .strictObject({ when: ActionWhen, do: z.literal('message'), text: Text, after: After })
      .describe("Sends the rendered text to the codon's running agent, as codon.message does."),
    z
      .strictObject({ when: ActionWhen, do: z.literal('halt'), after: After })
      .describe(
        "Stops the codon like codon.forceStop (the agent's whole process tree); its failureReason names the sentinel and its output.",
      ),
    z
      .strictObject({ when: ActionWhen, do: z.literal('rollback'), after: After })
      .describe("Stops the codon, rolls the agent root back to the codon's start, then idles."),
    z
      .strictObject({
        when: ActionWhen,
        do: z.literal('redo'),
        text: Text.optional().describe(
          "Template rendered with the output and added to the codon's prompt for the new run (same variables as message).",
        ),
        after: After,
        max: z
          .number()
          .int()
          .min(1)
          .max(100)
          .default(DEFAULT_MAX_REDOS)
          .describe(
            `Most redos of the codon by this action, counted over the execution's journal (every run and server restart). Default ${DEFAULT_MAX_REDOS}.`,
          ),
      })
      .describe(
        'Stops the codon, rolls back to its start and runs it again with the rendered text added to its prompt.',
      ),
    z
      .strictObject({
        when: ActionWhen,
        do: z.literal('comment'),
        file: z
          .string()
          .min(1)
          .max(4096)
          .describe('The file commented on, relative to the agent root, as checkpoint.diff names it.'),
        lines: z
          .strictObject({ start: z.number().int().min(1), end: z.number().int().min(1) })
          .refine((l) => l.end >= l.start, 'lines.end must not be before lines.start')
          .describe('The lines commented on, 1-based and inclusive, of `side` of the file.'),
        side: z
          .enum(['new', 'old'])
          .default('new')
          .describe('`new`: the file after the change (the default); `old`: the file before it.'),
        text: Text.describe('Template rendered with the output: the comment (same variables as message).'),
        after: After,
      })
      .describe(
        "Comments on lines of the codon's diff (review.comment, docs/review.md), from its start to its end checkpoint: a codon still running is commented on once it has ended.",
      ),
  ])
  .describe('One thing the sentinel does when its output says so.')
  .meta({ id: 'SentinelAction' });
export type SentinelAction = z.infer<typeof SentinelAction>;

/** The fields a sentinel body gains for actions (spread into its shape). */
export const SentinelActionsShape = {
  actions: z
    .array(SentinelAction)
    .max(20)
    .default([])
    .describe('What the sentinel does with its outputs, tested in order on each output. Default none.'),
  maxActions: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(DEFAULT_MAX_ACTIONS)
    .describe(
      `Most actions the sentinel takes while its codon runs (one codon.started to its codon.completed). Default ${DEFAULT_MAX_ACTIONS}.`,
    ),
  cooldownMs: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(DEFAULT_ACTION_COOLDOWN_MS)
    .describe(
      `Least time between two messages of the sentinel in one codon run; halt, rollback and redo end the run and wait for none. Default ${DEFAULT_ACTION_COOLDOWN_MS}.`,
    ),
  dryRun: z
    .boolean()
    .default(false)
    .describe('Announce each action (sentinel.action with dryRun: true) and do nothing. Default false.'),
};
