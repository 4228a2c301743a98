import { dirname, resolve } from 'node:path';
import { checkPromptTemplates, checkSentinelDefinition } from './check-sentinel.ts';
import type { LoadedSentinel, SentinelLoadError } from './loaded-plan.ts';
import { type PathSegment, type PlanProblem, type ProblemDraft, sortProblems } from './problems.ts';
import { salvageSentinel } from './salvage-sentinel.ts';
import { type SentinelDefinition, SentinelFile, type TemplateSource } from './sentinel-schema.ts';
import { readSourceFile, readText } from './source-file.ts';
import { issuesToDrafts } from './zod-issues.ts';

/**
 * Loading sentinel definitions. Problems inside a sentinel file (or a template it names) keep their
 * severity: a file a plan names that cannot be loaded makes the plan invalid, as an inline mistake does.
 */

export type SentinelFileLoad =
  | { ok: true; sentinel: LoadedSentinel; problems: PlanProblem[] }
  | { ok: false; loadError: SentinelLoadError; problems: PlanProblem[] };

type Templates = Pick<LoadedSentinel, 'systemPrompt' | 'userPrompt'>;

/** Reads `{file}` templates relative to `baseDir`; drafts point at the offending `file` field. */
export async function readTemplates(
  definition: Pick<SentinelDefinition, 'systemPrompt' | 'userPrompt'>,
  baseDir: string,
  path: PathSegment[],
): Promise<{ ok: true; templates: Templates } | { ok: false; drafts: ProblemDraft[] }> {
  const drafts: ProblemDraft[] = [];
  const read = async (source: TemplateSource | undefined, field: string): Promise<string | undefined> => {
    if (source === undefined || typeof source === 'string') return source;
    const file = resolve(baseDir, source.file);
    const text = await readText(file);
    if (text.ok) return text.text;
    drafts.push({
      code: text.code,
      path: [...path, field, 'file'],
      message: `Cannot read the ${field} template ${file}: ${text.reason}.`,
      hint: `Template paths are relative to ${baseDir}.`,
    });
    return undefined;
  };
  const [systemPrompt, userPrompt] = [
    await read(definition.systemPrompt, 'systemPrompt'),
    await read(definition.userPrompt, 'userPrompt'),
  ];
  if (drafts.length > 0 || userPrompt === undefined) return { ok: false, drafts };
  return { ok: true, templates: { systemPrompt, userPrompt } };
}

export function toLoadedSentinel(
  definition: SentinelDefinition,
  templates: Templates,
  origin: { source: 'inline' } | { source: 'file'; sourcePath: string },
): LoadedSentinel {
  const { systemPrompt: _system, userPrompt: _user, ...rest } = definition;
  return {
    ...rest,
    ...(templates.systemPrompt === undefined ? {} : { systemPrompt: templates.systemPrompt }),
    userPrompt: templates.userPrompt,
    ...origin,
  };
}

export type SentinelFileCheck =
  | { ok: true; sentinel: LoadedSentinel; problems: PlanProblem[] }
  | { ok: false; problems: PlanProblem[] };

/**
 * Reads and checks one sentinel file (YAML or JSON) on its own (`ribosome validate`): problems keep
 * their severity (errors: it cannot be loaded; warnings such as an unknown event type: it can).
 */
export async function checkSentinelFile(file: string): Promise<SentinelFileCheck> {
  const checked = await checkUnsorted(file);
  return { ...checked, problems: sortProblems(checked.problems, [file]) };
}

async function checkUnsorted(file: string): Promise<SentinelFileCheck> {
  const read = await readSourceFile(file, 'sentinel file');
  if (!read.ok) return { ok: false, problems: read.problems };
  const { source } = read;
  const parsed = SentinelFile.safeParse(source.data);
  if (!parsed.success) {
    // The checks beyond the schema still read the parts that are valid: every problem in one pass.
    const drafts = [
      ...issuesToDrafts(parsed.error.issues, SentinelFile, source.data),
      ...checkSentinelDefinition(salvageSentinel(source.data), []),
    ];
    return { ok: false, problems: [...read.warnings, ...drafts.map(source.locate)] };
  }
  const { $schema: _schema, ...definition } = parsed.data;
  const notes = checkSentinelDefinition(definition, []).map(source.locate);
  if (notes.some((n) => n.severity === 'error')) return { ok: false, problems: [...read.warnings, ...notes] };
  const templates = await readTemplates(definition, dirname(file), []);
  if (!templates.ok) {
    const problems = templates.drafts.map(source.locate);
    return { ok: false, problems: [...read.warnings, ...notes, ...problems] };
  }
  const prompts = checkPromptTemplates(definition, templates.templates, []).map(source.locate);
  if (prompts.length > 0) return { ok: false, problems: [...read.warnings, ...notes, ...prompts] };
  return {
    ok: true,
    sentinel: toLoadedSentinel(definition, templates.templates, { source: 'file', sourcePath: file }),
    problems: [...read.warnings, ...notes],
  };
}

/** Loads one sentinel file (YAML or JSON) a plan names. Never throws. */
export async function loadSentinelFile(file: string): Promise<SentinelFileLoad> {
  const checked = await checkSentinelFile(file);
  if (checked.ok) return checked;
  const codes = new Set(checked.problems.map((p) => p.code));
  const whole = checked.problems.length === 1 && checked.problems[0]?.path === '';
  const notFound = whole && codes.has('FILE_NOT_FOUND');
  const unreadable = whole && codes.has('FILE_UNREADABLE');
  if (notFound || unreadable) {
    // A missing or unreadable file is reported where the plan names it, not "in" the file.
    const code = notFound ? 'SENTINEL_FILE_NOT_FOUND' : 'SENTINEL_FILE_UNREADABLE';
    return {
      ok: false,
      loadError: { code, message: checked.problems[0]?.message ?? 'cannot read' },
      problems: [],
    };
  }
  const syntax = checked.problems.some(
    (p) => p.code === 'YAML_SYNTAX' || p.code === 'JSON_SYNTAX' || p.code === 'EMPTY_FILE',
  );
  const errors = checked.problems.filter((p) => p.severity === 'error').length;
  return {
    ok: false,
    loadError: syntax
      ? { code: 'SENTINEL_FILE_INVALID', message: checked.problems[0]?.message ?? 'cannot read' }
      : invalid(file, errors),
    problems: checked.problems,
  };
}

function invalid(file: string, count: number): SentinelLoadError {
  return {
    code: 'SENTINEL_FILE_INVALID',
    message: `${file} has ${count} problem${count === 1 ? '' : 's'}.`,
  };
}
