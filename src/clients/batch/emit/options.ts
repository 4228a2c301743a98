import { z } from 'zod';
import { SERVER_VERSION } from '../../../core/version.ts';
import { ENV_NAME_PATTERN } from '../../../plan/primitives.ts';

/**
 * What `ribosome batch --emit KIND` takes beyond the batch itself (docs/batches.md#past-one-machine),
 * each option with its default. The CLI parses its flags into these; the emitters take the parsed
 * (defaulted) values.
 */

/** A Kubernetes resource quantity: `500m`, `2`, `4Gi`, `1e3`. */
const Quantity = z
  .string()
  .regex(/^[+]?[0-9.]+([eE][+-]?[0-9]+|[numkKMGTPE]i?)?$/, 'a Kubernetes quantity such as 500m, 2 or 4Gi');
/** DNS-1123 subdomain: the names of Secrets, PersistentVolumeClaims and the like. */
const SubdomainName = z
  .string()
  .max(253)
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'lowercase letters, digits, "-" and "."',
  );
/** DNS-1123 label: a namespace's name. */
const LabelName = z
  .string()
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'lowercase letters, digits and "-"');

export const PvcStorage = z.strictObject({
  kind: z.literal('pvc'),
  /** An existing claim (ReadWriteMany: every pod mounts it); none: the manifests make one. */
  claim: SubdomainName.optional(),
  /** The size of the claim the manifests make. */
  size: Quantity.default('20Gi'),
  /** Its storage class; none: the cluster's default (which must offer ReadWriteMany). */
  storageClass: SubdomainName.optional(),
});
export const EmptyDirStorage = z.strictObject({
  kind: z.literal('emptyDir'),
  /** Run by `sh -c` in the pod once its job has ended, with RESULTS_DIR set; none: results die with the pod. */
  uploadCommand: z.string().min(1).optional(),
});
export const KubernetesStorage = z.discriminatedUnion('kind', [PvcStorage, EmptyDirStorage]);
export type KubernetesStorage = z.infer<typeof KubernetesStorage>;

export const KubernetesOptions = z.strictObject({
  /** The Ribosome image (built from the Containerfile), as the cluster pulls it. */
  image: z.string().min(1),
  /** The Secret holding the provider keys (each key an environment variable) and the access token. */
  secretName: SubdomainName,
  /** The Secret's key holding the access token every pod's protocol port asks for. */
  tokenSecretKey: z
    .string()
    .regex(/^[-._a-zA-Z0-9]+$/)
    .default('RIBOSOME_TOKEN'),
  storage: KubernetesStorage.default({ kind: 'pvc', size: '20Gi' }),
  /** Each pod's requests, and its limits. */
  resources: z.strictObject({ cpu: Quantity, memory: Quantity }).default({ cpu: '1', memory: '2Gi' }),
  /** Each pod's protocol port (WebSocket and dashboard), reached through the headless Service. */
  port: z.number().int().min(1).max(65_535).default(7777),
  namespace: LabelName.optional(),
});
export type KubernetesOptions = z.output<typeof KubernetesOptions>;

/** GitHub secret names: letters, digits and "_", not starting with a digit or GITHUB_. */
const SecretName = z
  .string()
  .regex(ENV_NAME_PATTERN)
  .refine((name) => !/^GITHUB_/i.test(name), 'names starting with GITHUB_ are reserved by GitHub');

export const GithubActionsOptions = z.strictObject({
  /** The batch file as the workflow sees it: a path relative to the repository's root. */
  batchPath: z
    .string()
    .min(1)
    .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a path inside the repository'),
  /** Repository secrets passed to every job as environment variables of the same names (provider keys). */
  secrets: z.array(SecretName).default(['ANTHROPIC_API_KEY']),
  /** How the runner gets Ribosome: the repository's own devDependency (`npm ci`), or a global install of this npm spec. */
  ribosome: z
    .discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('devDependency') }),
      z.strictObject({ kind: z.literal('global'), spec: z.string().min(1) }),
    ])
    // The version that wrote the workflow: a later release may run the batch otherwise.
    .default({ kind: 'global', spec: `ribosome@${SERVER_VERSION}` }),
  /** npm packages installed globally beside it: the agent CLIs the plans use (as the image's AGENT_CLIS). */
  agentClis: z.array(z.string().min(1)).default([]),
  /** Successful jobs are exported to branches PREFIX<job id>; default `ribosome/<batch name>/`. */
  branchPrefix: z
    .string()
    .regex(/^[A-Za-z0-9._/-]+$/, 'letters, digits, ".", "_", "-" and "/"')
    .optional(),
  runsOn: z.string().min(1).default('ubuntu-latest'),
});
export type GithubActionsOptions = z.output<typeof GithubActionsOptions>;
