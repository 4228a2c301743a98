/**
 * Kubernetes names from a batch name. An Indexed Job's pods are named (host names) `<job>-<index>`, a
 * DNS label of at most 63 characters that must start with a letter to be reached through the
 * Service (DNS-1035), so the Job's name leaves room for the largest index.
 */

const LABEL_MAX = 63;

/** The name the Job, its Service and (with suffixes) its other objects take; `jobs` is how many indexes it has. */
export function kubeBaseName(batchName: string, jobs: number): string {
  const room = LABEL_MAX - 1 - String(Math.max(jobs - 1, 0)).length;
  let slug = batchName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(slug)) slug = `batch-${slug}`;
  return slug.slice(0, room).replace(/-+$/, '');
}
