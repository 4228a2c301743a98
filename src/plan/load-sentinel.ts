import { dirname, resolve } from 'node:path';
import { checkSentinelDefinition } from './check-sentinel.ts';
import type { LoadedSentinel, SentinelLoadError } from './loaded-plan.ts';
import type { PathSegment, PlanProblem, ProblemDraft } from './problems.ts';
import { type SentinelDefinition, SentinelFile, type TemplateSource } from './sentinel-schema.ts';
import { readSourceFile, readText } from './source-file.ts';
import { issuesToDrafts } from './zod-issues.ts';

/**
 * Loading sentinel definitions. Problems inside a sentinel file (or a template it names) are warnings:
 * the plan still loads, and the reference carries a loadError the engine reports at codon start.
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

/** Loads one sentinel file (YAML or JSON). Never throws; every problem comes back as a warning. */
export async function loadSentinelFile(file: string): Promise<SentinelFileLoad> {
  const read = await readSourceFile(file, 'sentinel file');
  if (!read.ok) {
    const notFound = read.problems.some((p) => p.code === 'FILE_NOT_FOUND');
    const unreadable = read.problems.some((p) => p.code === 'FILE_UNREADABLE');
    const code = notFound
      ? 'SENTINEL_FILE_NOT_FOUND'
      : unreadable
        ? 'SENTINEL_FILE_UNREADABLE'
        : 'SENTINEL_FILE_INVALID';
    // A missing or unreadable file is reported where the plan names it, not "in" the file.
    const problems = notFound || unreadable ? [] : read.problems.map(asWarning);
    return { ok: false, loadError: { code, message: read.problems[0]?.message ?? 'cannot read' }, problems };
  }
  const { source } = read;
  const parsed = SentinelFile.safeParse(source.data);
  if (!parsed.success) {
    const problems = issuesToDrafts(parsed.error.issues, SentinelFile, source.data).map((d) =>
      asWarning(source.locate(d)),
    );
    return {
      ok: false,
      loadError: invalid(file, problems.length),
      problems: [...read.warnings, ...problems],
    };
  }
  const { $schema: _schema, ...definition } = parsed.data;
  const notes = checkSentinelDefinition(definition, []).map((d) => asWarning(source.locate(d)));
  const templates = await readTemplates(definition, dirname(file), []);
  if (!templates.ok) {
    const problems = templates.drafts.map((d) => asWarning(source.locate(d)));
    return {
      ok: false,
      loadError: invalid(file, problems.length),
      problems: [...read.warnings, ...notes, ...problems],
    };
  }
  return {
    ok: true,
    sentinel: toLoadedSentinel(definition, templates.templates, { source: 'file', sourcePath: file }),
    problems: [...read.warnings, ...notes],
  };
}

function invalid(file: string, count: number): SentinelLoadError {
  return {
    code: 'SENTINEL_FILE_INVALID',
    message: `${file} has ${count} problem${count === 1 ? '' : 's'}.`,
  };
}

function asWarning(problem: PlanProblem): PlanProblem {
  return { ...problem, severity: 'warning' };
}
