/**
 * # emit: a batch past one machine (docs/batches.md#past-one-machine)
 *
 * `ribosome batch FILE --emit KIND [--out DIR]` writes what runs the batch on an existing engine, one
 * job per pod or per CI runner, each running the same `ribosome batch FILE --job-index I`. Ribosome
 * schedules nothing itself. Both emitters are pure: the CLI reads the files and writes the result.
 *
 * `kubernetes` (kubernetes.ts), options in options.ts `KubernetesOptions`:
 * - `image` (required): the Ribosome image the cluster pulls (built from the Containerfile);
 * - `secretName` (required): the Secret whose keys become the pods' environment (provider keys), never
 *   inlined; `tokenSecretKey` (default RIBOSOME_TOKEN) is its key holding the protocol's access token;
 * - `storage`: `{kind: 'pvc', claim?, size = 20Gi, storageClass?}` (default; without `claim` a
 *   ReadWriteMany claim is made) or `{kind: 'emptyDir', uploadCommand?}` (run in the pod after its job,
 *   with RESULTS_DIR set);
 * - `resources` (default `{cpu: '1', memory: '2Gi'}`): each pod's requests and limits;
 * - `port` (default 7777): each pod's protocol port, behind the headless Service; `namespace`.
 * Input beyond them: the batch, its jobs, `parallel`, the batch file's path and `files` (path -> text of
 * the batch file, every job's plan and anything else to carry in the ConfigMap).
 * Output: `<batch name>.k8s.yaml`.
 *
 * `github-actions` (github-actions.ts), options `GithubActionsOptions`:
 * - `batchPath` (required): the batch file, relative to the repository's root;
 * - `secrets` (default [ANTHROPIC_API_KEY]): repository secrets given to each job by the same name;
 * - `ribosome` (default a global install of `ribosome`): `{kind: 'devDependency'}` runs the
 *   repository's own (`npm ci`, `npx ribosome`), `{kind: 'global', spec}` installs that npm spec;
 * - `agentClis`: npm packages installed beside it; `branchPrefix` (default `ribosome/<name>/`);
 *   `runsOn` (default ubuntu-latest).
 * Output: `.github/workflows/ribosome-<batch name>.yml`.
 *
 * A batch that cannot be emitted is an `EmitError` with its code (emit-error.ts).
 */
import { EmitError } from './emit-error.ts';
import { type GithubActionsInput, githubWorkflow } from './github-actions.ts';
import { type KubernetesInput, kubernetesManifests } from './kubernetes.ts';

export { EmitError, type EmitErrorCode } from './emit-error.ts';
export type { GithubActionsInput } from './github-actions.ts';
export type { KubernetesInput } from './kubernetes.ts';
export { GithubActionsOptions, KubernetesOptions } from './options.ts';

export type EmitKind = 'kubernetes' | 'github-actions';
export const EMIT_KINDS: readonly EmitKind[] = ['kubernetes', 'github-actions'];

/** What to write: `path` relative to --out (the current folder by default), and its text. */
export type Emitted = { ok: true; path: string; text: string } | { ok: false; error: EmitError };

export function emitBatch(
  ...[kind, input]: ['kubernetes', KubernetesInput] | ['github-actions', GithubActionsInput]
): Emitted {
  try {
    if (kind === 'kubernetes')
      return { ok: true, path: `${input.batch.name}.k8s.yaml`, text: kubernetesManifests(input) };
    return {
      ok: true,
      path: `.github/workflows/ribosome-${input.batch.name}.yml`,
      text: githubWorkflow(input),
    };
  } catch (error) {
    if (error instanceof EmitError) return { ok: false, error };
    throw error;
  }
}
