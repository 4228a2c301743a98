// Types only (erased at run time; kubernetes-models is a devDependency): every field written below is
// checked against the Kubernetes API's own types at compile time, as the tests check the values.
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IService } from 'kubernetes-models/v1/Service';
import { stringify } from 'yaml';
import { type BatchFile, DEFAULT_JOB_RETRIES, type Job } from '../../../plan/batch-schema.ts';
import { BATCH_MOUNT, type Carried, carryFiles } from './carry-files.ts';
import { kubeBaseName } from './kube-names.ts';
import type { KubernetesOptions } from './options.ts';

/**
 * `ribosome batch --emit kubernetes` (docs/batches.md#kubernetes): the batch as one Indexed Job, one
 * completion index per job, each pod running `ribosome batch FILE --job-index $(JOB_COMPLETION_INDEX)`
 * on the same batch file, carried in a ConfigMap with its plans; a volume for the batch directory; a
 * headless Service through which each pod's protocol port is reached. Pure: multi-document YAML.
 */

export type KubernetesInput = KubernetesOptions & {
  batch: BatchFile;
  jobs: readonly Job[];
  /** The batch file, absolute. */
  batchFile: string;
  /** Absolute path -> text of the batch file, every job's plan and any other file to carry. */
  files: ReadonlyMap<string, string>;
  /** Jobs at once: the Job's parallelism. */
  parallel: number;
};

/** Where each pod keeps the batch directory (`--dir`). */
export const RESULTS_MOUNT = '/results';
const CONTAINER = 'ribosome';
/** Exit codes of `ribosome batch --job-index` that no retry changes: the plan failed (1), or what was given is wrong (2). */
const FINAL_EXIT_CODES = [1, 2];

export function kubernetesManifests(input: KubernetesInput): string {
  const carried = carryFiles(input);
  const name = kubeBaseName(input.batch.name, input.jobs.length);
  const claim = input.storage.kind === 'pvc' ? (input.storage.claim ?? `${name}-results`) : undefined;
  const objects = [
    configMap(input, name, carried),
    ...(input.storage.kind === 'pvc' && input.storage.claim === undefined && claim
      ? [volumeClaim(input, name, claim)]
      : []),
    service(input, name),
    indexedJob(input, name, carried, claim),
  ];
  const yaml = objects.map((o) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false }));
  return `${header(input, name, carried)}${yaml.join('---\n')}`;
}

/** An object of the batch `base`: its name, the namespace, and the labels every object of the batch carries. */
function metadata(input: KubernetesInput, base: string, name = base) {
  return {
    name,
    ...(input.namespace === undefined ? {} : { namespace: input.namespace }),
    labels: labels(base),
  };
}

const labels = (name: string) => ({
  'app.kubernetes.io/name': 'ribosome',
  'app.kubernetes.io/instance': name,
  'app.kubernetes.io/component': 'batch',
});

function configMap(input: KubernetesInput, name: string, carried: Carried): IConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(input, name, `${name}-files`),
    data: Object.fromEntries(carried.files.map((file) => [file.key, file.text])),
  };
}

function volumeClaim(input: KubernetesInput, name: string, claim: string): IPersistentVolumeClaim {
  const storage = input.storage.kind === 'pvc' ? input.storage : undefined;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: metadata(input, name, claim),
    spec: {
      // Every pod writes its job's execution directory into it, from whichever node it runs on.
      accessModes: ['ReadWriteMany'],
      ...(storage?.storageClass === undefined ? {} : { storageClassName: storage.storageClass }),
      resources: { requests: { storage: storage?.size ?? '20Gi' } },
    },
  };
}

/** Headless: no load balancing, one DNS name per pod (`<job>-<index>.<service>`), ready or not. */
function service(input: KubernetesInput, name: string): IService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(input, name),
    spec: {
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: labels(name),
      ports: [{ name: 'protocol', port: input.port, targetPort: 'protocol' }],
    },
  };
}

function indexedJob(input: KubernetesInput, name: string, carried: Carried, claim: string | undefined): IJob {
  const args = [
    'batch',
    carried.batchPath,
    '--job-index',
    '$(JOB_COMPLETION_INDEX)',
    '--dir',
    RESULTS_MOUNT,
    '--host',
    '0.0.0.0',
    '--port',
    String(input.port),
  ];
  const upload = input.storage.kind === 'emptyDir' ? input.storage.uploadCommand : undefined;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(input, name),
    spec: {
      completionMode: 'Indexed',
      completions: input.jobs.length,
      parallelism: Math.max(1, Math.min(input.parallel, input.jobs.length)),
      // Retries as the batch's own: an index is started again after an infrastructure failure (its
      // run exited 3 or 4, or the pod died), never after its plan failed.
      backoffLimitPerIndex: input.batch.retries ?? DEFAULT_JOB_RETRIES,
      ...(input.batch.failFast ? { maxFailedIndexes: 0 } : {}),
      podFailurePolicy: {
        // Rules apply in order, the first that matches wins: a pod evicted or preempted is stopped by a
        // signal (its batch exits 130, to be resumed), which must not count whatever its exit code.
        rules: [
          // A node drained or a pod preempted is not the job's failure: not counted against its retries.
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
          {
            action: 'FailIndex',
            onExitCodes: { containerName: CONTAINER, operator: 'In', values: FINAL_EXIT_CODES },
          },
        ],
      },
      template: {
        metadata: { labels: labels(name) },
        spec: {
          restartPolicy: 'Never',
          subdomain: name,
          enableServiceLinks: false,
          containers: [
            {
              name: CONTAINER,
              image: input.image,
              ...(upload === undefined
                ? { args }
                : {
                    // The image's entrypoint is `tini -- ribosome`: the same, then the upload, whatever the job's end.
                    command: [
                      'tini',
                      '-g',
                      '--',
                      'sh',
                      '-c',
                      `ribosome "$@"; code=$?; ${upload}; exit $code`,
                      'ribosome',
                    ],
                    args,
                  }),
              env: [
                // Set by the Job controller too; declared so that $(JOB_COMPLETION_INDEX) in args is expanded.
                {
                  name: 'JOB_COMPLETION_INDEX',
                  valueFrom: {
                    fieldRef: {
                      fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']",
                    },
                  },
                },
                {
                  name: 'RIBOSOME_TOKEN',
                  valueFrom: { secretKeyRef: { name: input.secretName, key: input.tokenSecretKey } },
                },
                ...(upload === undefined ? [] : [{ name: 'RESULTS_DIR', value: RESULTS_MOUNT }]),
              ],
              // Provider keys: every key of the Secret, as an environment variable of that name.
              envFrom: [{ secretRef: { name: input.secretName } }],
              ports: [{ name: 'protocol', containerPort: input.port }],
              resources: { requests: input.resources, limits: input.resources },
              volumeMounts: [
                { name: 'batch-files', mountPath: BATCH_MOUNT, readOnly: true },
                { name: 'results', mountPath: RESULTS_MOUNT },
              ],
            },
          ],
          volumes: [
            {
              name: 'batch-files',
              configMap: {
                name: `${name}-files`,
                items: carried.files.map((file) => ({ key: file.key, path: file.path })),
              },
            },
            claim === undefined
              ? { name: 'results', emptyDir: {} }
              : { name: 'results', persistentVolumeClaim: { claimName: claim } },
          ],
        },
      },
    },
  };
}

/** What the manifests take for granted, in words, above them: what to make before `kubectl apply`. */
function header(input: KubernetesInput, name: string, carried: Carried): string {
  const ns = input.namespace ?? 'default';
  const lines = [
    `Ribosome batch "${input.batch.name}": ${input.jobs.length} job(s) as the Indexed Job ${name}, ${Math.min(input.parallel, input.jobs.length)} at once.`,
    'Made by `ribosome batch --emit kubernetes` (docs/batches.md#kubernetes). Before `kubectl apply -f` it:',
    `- the image ${input.image} holds Ribosome (its Containerfile) and the agent CLIs the plans use;`,
    `- the Secret ${input.secretName} in namespace ${ns} holds each provider key as an environment variable`,
    `  and the access token under ${input.tokenSecretKey}, e.g.:`,
    `  kubectl -n ${ns} create secret generic ${input.secretName} --from-literal=ANTHROPIC_API_KEY=... --from-literal=${input.tokenSecretKey}=$(openssl rand -hex 32)`,
    ...workspaceLines(carried.podJobs),
    ...storageLines(input),
    `Each pod's protocol port: ws://${name}-<index>.${name}.${ns}.svc:${input.port} (with the token).`,
  ];
  return lines.map((line) => `# ${line}\n`).join('');
}

/** Each workspace as the pods look for it (from their folder, when the batch names it relatively). */
function workspaceLines(podJobs: readonly Job[]): string[] {
  const where = new Map<string, number[]>();
  for (const job of podJobs) {
    if (job.workspace === undefined) continue;
    const at = job.workspace.lastIndexOf('@');
    const path = at > 0 ? job.workspace.slice(0, at) : job.workspace;
    where.set(path, [...(where.get(path) ?? []), job.index]);
  }
  if (where.size === 0) return [];
  const shown = [...where]
    .slice(0, 10)
    .map(([path, jobs]) => `    ${path} (job${jobs.length > 1 ? 's' : ''} ${jobs.join(', ')})`);
  const more = where.size > 10 ? [`    and ${where.size - 10} more`] : [];
  return [
    '- every workspace is a git repository at this path in the pod (in the image, or on a volume you add):',
    ...shown,
    ...more,
  ];
}

function storageLines(input: KubernetesInput): string[] {
  if (input.storage.kind === 'pvc')
    return input.storage.claim === undefined
      ? ['- the cluster can provide a ReadWriteMany volume for the claim made here (the batch directory).']
      : [`- the claim ${input.storage.claim} exists, ReadWriteMany (the batch directory).`];
  return input.storage.uploadCommand === undefined
    ? ["- nothing keeps the results: each pod's batch directory is an emptyDir, gone with the pod."]
    : ['- the upload command can reach where it copies the results (RESULTS_DIR) from inside the pod.'];
}
