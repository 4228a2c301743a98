import { posix } from 'node:path';
import type { IJob } from 'kubernetes-models/batch/v1';
import { Job } from 'kubernetes-models/batch/v1';
import type { IConfigMap, IService } from 'kubernetes-models/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { emitBatch } from '../../../../src/clients/batch/emit/index.ts';
import { type KubernetesInput, kubernetesManifests } from '../../../../src/clients/batch/emit/kubernetes.ts';
import { KubernetesOptions } from '../../../../src/clients/batch/emit/options.ts';
import { expandBatch } from '../../../../src/clients/batch/expand.ts';
import { BatchFile } from '../../../../src/plan/batch-schema.ts';

/**
 * `--emit kubernetes`: every manifest is checked against the Kubernetes API's schemas, as the
 * `kubernetes-models` package bundles them (the same validator rejects broken ones below), and the
 * pods are shown to find the files they need and to run the jobs this machine expanded, index by index.
 */

/** The Kubernetes API's model of each kind the emitter writes; any other kind fails the test. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'batch/v1/Job': Job,
};

type Manifest = { apiVersion: string; kind: string; metadata: { name: string } } & Record<string, unknown>;

/** The documents of the YAML, each validated by the API's model of its kind. */
function manifests(text: string): Manifest[] {
  const docs = parseAllDocuments(text).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as Manifest;
  });
  for (const doc of docs) validate(doc);
  return docs;
}

function validate(doc: Manifest): void {
  const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
  if (!Model) throw new Error(`no Kubernetes model for ${doc.apiVersion}/${doc.kind}`);
  new Model(doc as never).validate();
}

const of = <T>(docs: Manifest[], kind: string) => docs.find((d) => d.kind === kind) as unknown as T;

const BATCH_FILE = '/home/me/fleet/batch.yaml';
const PLAN_TEXT = 'name: p\ncodons:\n  - id: a\n    prompt: do it\n';

/** The batch file's text and the files beside it, expanded as `ribosome batch` expands it here. */
function batchInput(
  text: string,
  options: Partial<KubernetesOptions> & { image?: string } = {},
  files: Record<string, string> = {},
): KubernetesInput {
  const batch = BatchFile.parse(parse(text));
  const expanded = expandBatch(batch, posix.dirname(BATCH_FILE));
  if (!expanded.ok) throw new Error(JSON.stringify(expanded.problems));
  const all = new Map<string, string>([[BATCH_FILE, text], ...Object.entries(files)]);
  for (const job of expanded.jobs) if (!all.has(job.plan)) all.set(job.plan, PLAN_TEXT);
  return {
    ...KubernetesOptions.parse({
      image: 'registry.example/ribosome:0.1.0',
      secretName: 'ribosome-keys',
      ...options,
    }),
    batch,
    jobs: expanded.jobs,
    batchFile: BATCH_FILE,
    files: all,
    parallel: 3,
  };
}

const MATRIX = `# Two repositories, two models.
name: fleet
defaults:
  plan: plans/fix.yaml
matrix:
  workspace: [/repos/one, /repos/two@main]
  model: [m1, m2]
`;

describe('ribosome batch --emit kubernetes', () => {
  it('writes a ConfigMap, a claim, a headless Service and an Indexed Job, each valid for the Kubernetes API', () => {
    const docs = manifests(kubernetesManifests(batchInput(MATRIX)));
    expect(docs.map((d) => `${d.kind} ${d.metadata.name}`)).toEqual([
      'ConfigMap fleet-files',
      'PersistentVolumeClaim fleet-results',
      'Service fleet',
      'Job fleet',
    ]);
    const job = of<IJob>(docs, 'Job');
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 3 });
    // Every object says which batch it belongs to, for `kubectl delete -l app.kubernetes.io/instance=fleet`.
    for (const doc of docs)
      expect(doc.metadata).toMatchObject({ labels: { 'app.kubernetes.io/instance': 'fleet' } });
  });

  it('writes each value where it is, without YAML anchors a reader would have to follow', () => {
    expect(kubernetesManifests(batchInput(MATRIX))).not.toMatch(/(^|\s)[&*]a\d+(\s|$)/m);
  });

  it('each pod runs the job of its completion index from the carried batch file, serving its protocol on the port', () => {
    const docs = manifests(kubernetesManifests(batchInput(MATRIX, { port: 9000 })));
    const pod = of<IJob>(docs, 'Job').spec?.template.spec;
    const container = pod?.containers[0];
    expect(container?.args).toEqual([
      'batch',
      '/batch/batch.yaml',
      '--job-index',
      '$(JOB_COMPLETION_INDEX)',
      '--dir',
      '/results',
      '--host',
      '0.0.0.0',
      '--port',
      '9000',
    ]);
    // The variable the args expand is in the container's environment, from the index annotation.
    expect(
      container?.env?.find((e) => e.name === 'JOB_COMPLETION_INDEX')?.valueFrom?.fieldRef?.fieldPath,
    ).toBe("metadata.annotations['batch.kubernetes.io/job-completion-index']");
    expect(container?.ports).toEqual([{ name: 'protocol', containerPort: 9000 }]);
    expect(pod?.restartPolicy).toBe('Never');
  });

  it('provider keys and the access token come from the named Secret, never written in the manifests', () => {
    const input = batchInput(MATRIX, { secretName: 'team-keys', tokenSecretKey: 'token' });
    const container = of<IJob>(manifests(kubernetesManifests(input)), 'Job').spec?.template.spec
      ?.containers[0];
    expect(container?.envFrom).toEqual([{ secretRef: { name: 'team-keys' } }]);
    expect(container?.env?.find((e) => e.name === 'RIBOSOME_TOKEN')?.valueFrom).toEqual({
      secretKeyRef: { name: 'team-keys', key: 'token' },
    });
    // No variable holds a value of its own but the job index's source.
    expect(container?.env?.filter((e) => e.value !== undefined)).toEqual([]);
  });

  it('the headless Service gives each pod a name (<job>-<index>.<service>) and reaches its protocol port', () => {
    const docs = manifests(kubernetesManifests(batchInput(MATRIX, { namespace: 'agents' })));
    const service = of<IService>(docs, 'Service');
    const job = of<IJob>(docs, 'Job');
    expect(service.spec?.clusterIP).toBe('None');
    expect(job.spec?.template.spec?.subdomain).toBe(service.metadata?.name);
    // The Service selects exactly the labels the pods carry.
    expect(job.spec?.template.metadata?.labels).toMatchObject(service.spec?.selector ?? { none: 'selected' });
    expect(service.spec?.ports).toEqual([{ name: 'protocol', port: 7777, targetPort: 'protocol' }]);
    for (const doc of docs) expect(doc.metadata).toMatchObject({ namespace: 'agents' });
  });

  it("requests and limits each pod's resources", () => {
    const input = batchInput(MATRIX, { resources: { cpu: '500m', memory: '3Gi' } });
    const container = of<IJob>(manifests(kubernetesManifests(input)), 'Job').spec?.template.spec
      ?.containers[0];
    expect(container?.resources).toEqual({
      requests: { cpu: '500m', memory: '3Gi' },
      limits: { cpu: '500m', memory: '3Gi' },
    });
  });

  it('retries an index after an infrastructure failure as the batch says, never after its plan failed; fail-fast stops at the first', () => {
    const spec = of<IJob>(manifests(kubernetesManifests(batchInput(`${MATRIX}retries: 2\n`))), 'Job').spec;
    expect(spec?.backoffLimitPerIndex).toBe(2);
    expect(spec?.maxFailedIndexes).toBeUndefined();
    // In order, the first that matches wins: an evicted pod (its batch stopped by SIGTERM) never
    // reaches the rule that fails the index.
    expect(spec?.podFailurePolicy?.rules).toEqual([
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
      { action: 'FailIndex', onExitCodes: { containerName: 'ribosome', operator: 'In', values: [1, 2] } },
    ]);
    const fast = of<IJob>(
      manifests(kubernetesManifests(batchInput(`${MATRIX}failFast: true\n`))),
      'Job',
    ).spec;
    expect(fast?.maxFailedIndexes).toBe(0);
    expect(fast?.backoffLimitPerIndex).toBe(1);
  });

  it('the pods find the batch file and its plans, and expand them into the same jobs, index by index', () => {
    const text = `name: spread
jobs:
  - id: first
    plan: plans/fix.yaml
  - id: second
    plan: ../shared/review.yaml
    workspace: ../repos/two
`;
    const input = batchInput(text);
    const docs = manifests(kubernetesManifests(input));
    const podFiles = filesInPod(docs);
    expect([...podFiles.keys()].sort()).toEqual([
      '/batch/fleet/batch.yaml',
      '/batch/fleet/plans/fix.yaml',
      '/batch/shared/review.yaml',
    ]);
    const args = of<IJob>(docs, 'Job').spec?.template.spec?.containers[0]?.args ?? [];
    const inPod = expandInPod(podFiles, args[1] ?? '');
    expect(inPod.map((j) => [j.index, j.id])).toEqual(input.jobs.map((j) => [j.index, j.id]));
    for (const job of inPod) expect(podFiles.get(job.plan)).toBe(PLAN_TEXT);
    // Workspaces are not carried: the header says where each pod looks for them.
    expect(kubernetesManifests(input)).toMatch(/^#\s+\/batch\/repos\/two \(job 1\)$/m);
  });

  it("rewrites a plan path written absolute to the plan's place in the pod, keeping the file's comments", () => {
    const text = `# Absolute plans.
name: abs
jobs:
  - id: one
    plan: /srv/plans/one.yaml # the first
  - id: two
    plan: plans/two.yaml
`;
    const docs = manifests(kubernetesManifests(batchInput(text)));
    const podFiles = filesInPod(docs);
    const batchText = podFiles.get('/batch/home/me/fleet/batch.yaml') ?? '';
    expect(batchText).toContain('# Absolute plans.');
    expect(batchText).toContain('plan: /batch/srv/plans/one.yaml # the first');
    expect(batchText).toContain('plan: plans/two.yaml');
    const inPod = expandInPod(podFiles, '/batch/home/me/fleet/batch.yaml');
    expect(inPod.map((j) => j.plan)).toEqual([
      '/batch/srv/plans/one.yaml',
      '/batch/home/me/fleet/plans/two.yaml',
    ]);
  });

  it('an existing claim is mounted as it is; emptyDir storage runs the upload after the job and keeps its exit code', () => {
    const existing = manifests(
      kubernetesManifests(batchInput(MATRIX, { storage: { kind: 'pvc', claim: 'shared', size: '1Gi' } })),
    );
    expect(existing.map((d) => d.kind)).not.toContain('PersistentVolumeClaim');
    expect(of<IJob>(existing, 'Job').spec?.template.spec?.volumes?.[1]).toEqual({
      name: 'results',
      persistentVolumeClaim: { claimName: 'shared' },
    });

    const upload = 'aws s3 cp --recursive "$RESULTS_DIR" s3://bucket/fleet/';
    const docs = manifests(
      kubernetesManifests(batchInput(MATRIX, { storage: { kind: 'emptyDir', uploadCommand: upload } })),
    );
    const pod = of<IJob>(docs, 'Job').spec?.template.spec;
    expect(pod?.volumes?.[1]).toEqual({ name: 'results', emptyDir: {} });
    const container = pod?.containers[0];
    expect(container?.command?.slice(0, 5)).toEqual(['tini', '-g', '--', 'sh', '-c']);
    expect(container?.command?.[5]).toBe(`ribosome "$@"; code=$?; ${upload}; exit $code`);
    expect(container?.args?.[0]).toBe('batch');
    expect(container?.env).toContainEqual({ name: 'RESULTS_DIR', value: '/results' });
  });

  it('names fit Kubernetes: lower case, a letter first, and room for the largest index in each pod name', () => {
    const jobs = Array.from({ length: 1000 }, (_, i) => `  - id: j${i}\n`).join('');
    const text = `name: A_Very.Long-Batch_Name_that_goes_on_and_on_and_on_beyond_what_a_label_holds\ndefaults:\n  plan: p.yaml\njobs:\n${jobs}`;
    const docs = manifests(kubernetesManifests(batchInput(text)));
    const job = of<IJob>(docs, 'Job');
    const podName = `${job.metadata?.name}-999`;
    expect(podName.length).toBeLessThanOrEqual(63);
    expect(podName).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    expect(
      manifests(
        kubernetesManifests(batchInput('name: 2024-run\ndefaults:\n  plan: p.yaml\njobs:\n  - id: a\n')),
      )[0]?.metadata.name,
    ).toBe('batch-2024-run-files');
  });

  it('the validator rejects broken manifests: a parallelism that is not a number, a container without a name', () => {
    const job = of<Manifest & IJob>(manifests(kubernetesManifests(batchInput(MATRIX))), 'Job');
    const stringParallelism = structuredClone(job);
    Object.assign(stringParallelism.spec ?? {}, { parallelism: '3' });
    expect(() => validate(stringParallelism)).toThrow(/parallelism must be integer/);
    const nameless = structuredClone(job);
    const container = nameless.spec?.template.spec?.containers[0] ?? {};
    delete (container as { name?: string }).name;
    expect(() => validate(nameless)).toThrow(/must have required property 'name'|required property name/);
  });

  it('refuses, with a code, a batch whose plan text was not given, and one too large for a ConfigMap', () => {
    const missing = batchInput(MATRIX);
    const files = new Map(missing.files);
    files.delete('/home/me/fleet/plans/fix.yaml');
    const result = emitBatch('kubernetes', { ...missing, files });
    expect(result).toMatchObject({ ok: false, error: { code: 'EMIT_FILE_MISSING' } });
    expect(!result.ok && result.error.message).toContain('/home/me/fleet/plans/fix.yaml');

    const big = batchInput(MATRIX, {}, { '/home/me/fleet/plans/fix.yaml': `# ${'x'.repeat(1_100_000)}\n` });
    expect(emitBatch('kubernetes', big)).toMatchObject({ ok: false, error: { code: 'EMIT_TOO_LARGE' } });
    expect(emitBatch('kubernetes', batchInput(MATRIX))).toMatchObject({ ok: true, path: 'fleet.k8s.yaml' });
  });

  it('refuses a batch its rewritten plan paths would expand differently in the pods', () => {
    // Two spellings of one plan: different values here (the exclude matches nothing), one in the pods.
    const text = `name: twice
matrix:
  plan: [/home/me/fleet/plans/a.yaml]
  model: [m1]
  exclude:
    - plan: /home/me/fleet/plans/./a.yaml
`;
    expect(emitBatch('kubernetes', batchInput(text))).toMatchObject({
      ok: false,
      error: { code: 'EMIT_JOBS_CHANGED' },
    });
  });

  it('the header says what must exist before `kubectl apply`: the image, the Secret and its keys', () => {
    const text = kubernetesManifests(batchInput(MATRIX, { namespace: 'agents' }));
    const header = text.slice(0, text.indexOf('apiVersion'));
    expect(header).toContain('registry.example/ribosome:0.1.0');
    expect(header).toContain('kubectl -n agents create secret generic ribosome-keys');
    expect(header).toMatch(/^#\s+\/repos\/one \(jobs 0, 1\)$/m);
    expect(header).toContain('ws://fleet-<index>.fleet.agents.svc:7777');
  });
});

/** The files each pod sees under /batch: the ConfigMap's keys at the paths its volume's items give. */
function filesInPod(docs: Manifest[]): Map<string, string> {
  const data = of<IConfigMap>(docs, 'ConfigMap').data ?? {};
  const pod = of<IJob>(docs, 'Job').spec?.template.spec;
  const mount = pod?.containers[0]?.volumeMounts?.find((m) => m.name === 'batch-files')?.mountPath ?? '';
  const items = pod?.volumes?.find((v) => v.name === 'batch-files')?.configMap?.items ?? [];
  return new Map(items.map((item) => [posix.join(mount, item.path), data[item.key] ?? '']));
}

/** The batch as `ribosome batch` in the pod expands it, from the file the pod's args name. */
function expandInPod(files: Map<string, string>, batchPath: string) {
  const expanded = expandBatch(BatchFile.parse(parse(files.get(batchPath) ?? '')), posix.dirname(batchPath));
  if (!expanded.ok) throw new Error(JSON.stringify(expanded.problems));
  return expanded.jobs;
}
