import { basename, isAbsolute, resolve } from 'node:path';
import { type BatchFile, type Job, type JobBudget, MAX_JOBS, type Matrix } from '../../plan/batch-schema.ts';
import type { Agent } from '../../plan/primitives.ts';
import { ID_MAX_LENGTH } from '../../plan/primitives.ts';

/**
 * The jobs of a batch file, in the order they run: the listed ones, then the matrix's combinations
 * (every value of each axis, in the order plan, workspace, agent, model, vars, repeat; exclude
 * removes, include completes or adds, as GitHub Actions' matrix does). Pure: paths resolve against
 * `dir`, the batch file's folder.
 */
export type Expanded = { ok: true; jobs: Job[] } | { ok: false; problems: ExpandProblem[] };
export type ExpandProblem = {
  code: 'MISSING_FIELD' | 'DUPLICATE_ID' | 'INVALID_VALUE';
  path: (string | number)[];
  message: string;
};

type Fields = {
  plan?: string;
  workspace?: string;
  model?: string;
  agent?: Agent;
  vars?: Record<string, string>;
  budget?: JobBudget;
};

/** One matrix combination: axis name -> value (vars as `vars.NAME`). */
type Combo = Record<string, string>;

export function expandBatch(batch: BatchFile, dir: string): Expanded {
  const problems: ExpandProblem[] = [];
  const defaults: Fields = batch.defaults ?? {};
  const drafts: { id?: string; fields: Fields; axes: Combo; path: (string | number)[] }[] = [];
  for (const [i, job] of (batch.jobs ?? []).entries()) {
    const { id, ...fields } = job;
    drafts.push({ id, fields, axes: {}, path: ['jobs', i] });
  }
  const most = batch.matrix ? matrixSize(batch.matrix) : 0;
  if (batch.matrix && most > MAX_JOBS * 10) {
    // Refused before it is made: a few lines of axes can describe more jobs than memory holds.
    return {
      ok: false,
      problems: [
        {
          code: 'INVALID_VALUE',
          path: ['matrix'],
          message: `The matrix makes up to ${most.toLocaleString('en')} jobs; at most ${MAX_JOBS} are allowed.`,
        },
      ],
    };
  }
  if (batch.matrix) {
    for (const combo of matrixCombos(batch.matrix)) {
      drafts.push({ fields: fieldsOf(combo), axes: combo, path: ['matrix'] });
    }
  }
  if (drafts.length === 0)
    problems.push({
      code: 'MISSING_FIELD',
      path: [],
      message: 'The batch has no job: give jobs, a matrix, or both.',
    });
  if (drafts.length > MAX_JOBS)
    problems.push({
      code: 'INVALID_VALUE',
      path: [],
      message: `The batch makes ${drafts.length} jobs; at most ${MAX_JOBS} are allowed.`,
    });

  const taken = new Set<string>();
  for (const draft of drafts) {
    if (draft.id === undefined) continue;
    if (taken.has(draft.id))
      problems.push({
        code: 'DUPLICATE_ID',
        path: [...draft.path, 'id'],
        message: `Job id "${draft.id}" is already used.`,
      });
    taken.add(draft.id);
  }
  const jobs: Job[] = [];
  for (const [index, draft] of drafts.entries()) {
    const fields: Fields = {
      ...defaults,
      ...draft.fields,
      vars: { ...defaults.vars, ...draft.fields.vars },
    };
    if (fields.plan === undefined) {
      problems.push({
        code: 'MISSING_FIELD',
        path: draft.path,
        message: `${draft.id === undefined ? `Matrix job ${describeCombo(draft.axes)}` : `Job "${draft.id}"`} has no plan: set plan on it, in defaults, or as a matrix axis.`,
      });
      continue;
    }
    const id = draft.id ?? uniqueId(comboId(draft.axes, index), taken);
    taken.add(id);
    jobs.push({
      id,
      index: jobs.length,
      plan: resolve(dir, fields.plan),
      ...(fields.workspace === undefined ? {} : { workspace: resolveWorkspace(fields.workspace, dir) }),
      ...(fields.model === undefined ? {} : { model: fields.model }),
      ...(fields.agent === undefined ? {} : { agent: fields.agent }),
      vars: fields.vars ?? {},
      ...(fields.budget === undefined ? {} : { budget: fields.budget }),
      axes: draft.axes,
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, jobs };
}

/** PATH[@REF] with PATH made absolute against `dir`; the ref kept as written. */
export function resolveWorkspace(text: string, dir: string): string {
  const at = text.lastIndexOf('@');
  const path = at > 0 ? text.slice(0, at) : text;
  const ref = at > 0 ? text.slice(at) : '';
  return `${isAbsolute(path) ? resolve(path) : resolve(dir, path)}${ref}`;
}

const AXES = ['plan', 'workspace', 'agent', 'model'] as const;

/** The most jobs a matrix can make (before exclude), without making them. */
export function matrixSize(matrix: Matrix): number {
  const lengths = [
    ...AXES.map((name) => matrix[name]?.length ?? 0).filter((n) => n > 0),
    ...Object.values(matrix.vars ?? {}).map((values) => values.length),
  ];
  const product = lengths.length === 0 ? 0 : lengths.reduce((a, b) => a * b, 1);
  return (product + (matrix.include?.length ?? 0)) * (matrix.repeat ?? 1);
}

/** Every combination of the matrix, after exclude and include, each repeated. */
export function matrixCombos(matrix: Matrix): Combo[] {
  const axes: [string, readonly string[]][] = [];
  for (const name of AXES) {
    const values = matrix[name];
    if (values) axes.push([name, values]);
  }
  for (const [name, values] of Object.entries(matrix.vars ?? {})) axes.push([`vars.${name}`, values]);
  let combos: Combo[] = axes.length === 0 ? [] : [{}];
  for (const [name, values] of axes) {
    combos = combos.flatMap((combo) => values.map((value) => ({ ...combo, [name]: value })));
  }
  const excluded = (matrix.exclude ?? []).map(rowCombo);
  combos = combos.filter((combo) => !excluded.some((row) => matches(combo, row)));
  const axisNames = new Set(axes.map(([name]) => name));
  for (const row of (matrix.include ?? []).map(rowCombo)) {
    const onAxes = Object.fromEntries(Object.entries(row).filter(([k]) => axisNames.has(k)));
    const extra = Object.fromEntries(Object.entries(row).filter(([k]) => !axisNames.has(k)));
    const targets = Object.keys(extra).length > 0 ? combos.filter((c) => matches(c, onAxes)) : [];
    if (targets.length > 0 && Object.keys(onAxes).length > 0) {
      for (const target of targets) Object.assign(target, extra);
    } else if (!combos.some((c) => matches(c, row) && matches(row, c))) {
      combos.push({ ...row });
    }
  }
  const repeat = matrix.repeat ?? 1;
  if (repeat === 1) return combos;
  return combos.flatMap((combo) =>
    Array.from({ length: repeat }, (_, i) => ({ ...combo, repeat: String(i + 1) })),
  );
}

function rowCombo(row: NonNullable<Matrix['include']>[number]): Combo {
  const combo: Combo = {};
  for (const name of AXES) {
    const value = row[name];
    if (value !== undefined) combo[name] = value;
  }
  for (const [name, value] of Object.entries(row.vars ?? {})) combo[`vars.${name}`] = value;
  return combo;
}

const matches = (combo: Combo, row: Combo) => Object.entries(row).every(([k, v]) => combo[k] === v);

function fieldsOf(combo: Combo): Fields {
  const vars: Record<string, string> = {};
  const fields: Fields = {};
  for (const [name, value] of Object.entries(combo)) {
    if (name.startsWith('vars.')) vars[name.slice(5)] = value;
    else if (name === 'plan' || name === 'workspace' || name === 'model') fields[name] = value;
    else if (name === 'agent') fields.agent = value as Agent;
  }
  return Object.keys(vars).length > 0 ? { ...fields, vars } : fields;
}

function describeCombo(combo: Combo): string {
  const parts = Object.entries(combo).map(([k, v]) => `${k}=${v}`);
  return parts.length > 0 ? `(${parts.join(', ')})` : '';
}

/** A readable id from the combination's values: `repo-a.codex.sonnet.2`. */
function comboId(combo: Combo, index: number): string {
  const parts = Object.entries(combo).map(([name, value]) => {
    if (name === 'plan') return basename(value).replace(/\.(ya?ml|json)$/i, '');
    if (name === 'workspace') {
      const at = value.lastIndexOf('@');
      const path = at > 0 ? value.slice(0, at) : value;
      const ref = at > 0 ? value.slice(at + 1) : '';
      return `${basename(path.replace(/\/+$/, '')) || 'workspace'}${ref ? `-${ref.slice(0, 12)}` : ''}`;
    }
    return value;
  });
  const slug = parts
    .join('.')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, ID_MAX_LENGTH - 8);
  return slug === '' ? `job-${index + 1}` : slug;
}

function uniqueId(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken.has(`${wanted}-${n}`)) return `${wanted}-${n}`;
}
