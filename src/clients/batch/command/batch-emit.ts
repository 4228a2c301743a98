import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { BatchFile } from '../../../plan/batch-schema.ts';
import { loadPlan } from '../../../plan/index.ts';
import { displayLine } from '../../model/display-text.ts';
import {
  EMIT_KINDS,
  type EmitKind,
  emitBatch,
  GithubActionsOptions,
  KubernetesOptions,
} from '../emit/index.ts';
import type { LoadedBatch } from '../run/load-batch.ts';

/** `ribosome batch FILE --emit KIND`'s own options, as commander gives them. */
export type EmitFlags = {
  emit?: string;
  out?: string;
  image?: string;
  secret?: string;
  claim?: string;
  emptyDir?: boolean;
  upload?: string;
  cpu?: string;
  memory?: string;
  namespace?: string;
  podPort?: string;
  secrets?: string;
  branchPrefix?: string;
  agentClis?: string;
  ribosomeDev?: boolean;
};

const list = (text: string | undefined) =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');

/**
 * Writes what runs the batch past this machine (docs/batches.md#past-one-machine): Kubernetes
 * manifests or a GitHub Actions workflow, under --out (default the current folder). Exit 0, or 2
 * with what is wrong.
 */
export async function emitCommand(
  loaded: LoadedBatch,
  flags: EmitFlags,
  parallel: number | undefined,
): Promise<number> {
  const say = (text: string) => process.stderr.write(`ribosome batch: ${displayLine(text)}\n`);
  const kind = flags.emit as EmitKind;
  if (!EMIT_KINDS.includes(kind)) {
    say(`--emit must be one of ${EMIT_KINDS.join(', ')}, got "${flags.emit}"`);
    return 2;
  }
  const misplaced = misplacedFlags(kind, flags);
  if (misplaced) {
    say(misplaced);
    return 2;
  }
  const common = {
    batch: loaded.batch,
    jobs: loaded.jobs,
    // Not this machine's default: the engine's capacity bounds what runs at once, and --parallel
    // (or the file's parallel) what the providers' limits allow.
    parallel: parallel ?? loaded.batch.parallel ?? loaded.jobs.length,
  };
  let emitted: ReturnType<typeof emitBatch>;
  /** Where the file goes without --out: here, or the repository's root for a workflow. */
  let root = '.';
  if (kind === 'kubernetes') {
    const options = KubernetesOptions.safeParse({
      image: flags.image,
      secretName: flags.secret,
      storage: flags.emptyDir
        ? { kind: 'emptyDir', ...(flags.upload ? { uploadCommand: flags.upload } : {}) }
        : { kind: 'pvc', ...(flags.claim ? { claim: flags.claim } : {}) },
      ...(flags.cpu || flags.memory
        ? { resources: { cpu: flags.cpu ?? '1', memory: flags.memory ?? '2Gi' } }
        : {}),
      ...(flags.podPort === undefined ? {} : { port: Number(flags.podPort) }),
      ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
    });
    if (!options.success) {
      return refuse(say, options.error, {
        image: '--image',
        secretName: '--secret',
        resources: '--cpu or --memory',
      });
    }
    const relativeOnes = relativeWorkspaces(loaded.batch);
    if (relativeOnes.length > 0) {
      say(
        `--emit kubernetes: workspace ${relativeOnes[0]} is relative to the batch file; in a pod that folder is the ConfigMap's read-only mount, which holds no repository. Name each workspace by the absolute path where the image (or a volume you add) holds it.`,
      );
      return 2;
    }
    const files = await carriedFiles(loaded);
    emitted = emitBatch('kubernetes', { ...options.data, ...common, batchFile: loaded.file, files });
  } else {
    const top = gitTopLevel(dirname(loaded.file));
    if (top === undefined) {
      say(
        `--emit github-actions: ${loaded.file} is not in a git repository; the workflow runs in a checkout of one`,
      );
      return 2;
    }
    root = top;
    const options = GithubActionsOptions.safeParse({
      // The workflow's steps run at the checkout's root.
      batchPath: relative(top, loaded.file).split(sep).join('/'),
      ...(flags.secrets === undefined ? {} : { secrets: list(flags.secrets) }),
      ...(flags.agentClis === undefined ? {} : { agentClis: list(flags.agentClis) }),
      ...(flags.branchPrefix === undefined ? {} : { branchPrefix: flags.branchPrefix }),
      ...(flags.ribosomeDev ? { ribosome: { kind: 'devDependency' } } : {}),
    });
    if (!options.success) {
      return refuse(say, options.error, {
        batchPath: 'the batch file (run this from the root of the repository that holds it)',
      });
    }
    emitted = emitBatch('github-actions', { ...options.data, ...common });
  }
  if (!emitted.ok) {
    say(emitted.error.message);
    return 2;
  }
  const target = resolve(flags.out ?? root, emitted.path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, emitted.text);
  say(
    `wrote ${target} (${loaded.jobs.length} job${loaded.jobs.length === 1 ? '' : 's'}, ${common.parallel} at once)`,
  );
  return 0;
}

function refuse(
  say: (text: string) => void,
  error: { issues: readonly { path: PropertyKey[]; message: string }[] },
  names: Record<string, string>,
): number {
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? '');
    const flag = names[key] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    say(
      `--emit: ${flag}: ${issue.message === 'Invalid input: expected string, received undefined' ? 'required' : issue.message}`,
    );
  }
  return 2;
}

/** The batch file, every job's plan, and what each plan reads at start: prompt files and sentinel files. */
async function carriedFiles(loaded: LoadedBatch): Promise<Map<string, string>> {
  const paths = new Set<string>([loaded.file]);
  for (const job of loaded.jobs) {
    if (paths.has(job.plan)) continue;
    paths.add(job.plan);
    const plan = await loadPlan(job.plan);
    if (!plan.ok) continue;
    for (const codon of plan.plan.codons) {
      if (codon.promptFile) paths.add(codon.promptFile);
      for (const attached of codon.sentinels) {
        if (attached.sentinel.sourcePath) paths.add(attached.sentinel.sourcePath);
      }
    }
  }
  return new Map([...paths].map((path) => [path, readFileSync(path, 'utf8')]));
}

const KUBERNETES_FLAGS = [
  'image',
  'secret',
  'claim',
  'emptyDir',
  'upload',
  'cpu',
  'memory',
  'namespace',
  'podPort',
] as const;
const GITHUB_FLAGS = ['secrets', 'branchPrefix', 'agentClis', 'ribosomeDev'] as const;
const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** A flag of the other kind, or two that cannot go together: what to say. */
function misplacedFlags(kind: EmitKind, flags: EmitFlags): string | undefined {
  const others = kind === 'kubernetes' ? GITHUB_FLAGS : KUBERNETES_FLAGS;
  const given = others.find((key) => flags[key] !== undefined);
  if (given)
    return `${flagName(given)} is for --emit ${kind === 'kubernetes' ? 'github-actions' : 'kubernetes'}`;
  if (flags.claim !== undefined && flags.emptyDir)
    return '--claim and --empty-dir are two places for the results: give one';
  if (flags.upload !== undefined && !flags.emptyDir)
    return '--upload goes with --empty-dir (a claim keeps the results itself)';
  return undefined;
}

/** Workspaces written relative in the batch file (they resolve under the batch file's folder). */
function relativeWorkspaces(batch: BatchFile): string[] {
  const written = [
    batch.defaults?.workspace,
    ...(batch.jobs ?? []).map((j) => j.workspace),
    ...(batch.matrix?.workspace ?? []),
    ...(batch.matrix?.include ?? []).map((r) => r.workspace),
  ];
  return written.filter((w): w is string => w !== undefined && !isAbsolute(w));
}

function gitTopLevel(dir: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}
