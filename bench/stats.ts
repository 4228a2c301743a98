/** Small statistics helpers shared by the benchmarks. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  return percentile(Float64Array.from(values).sort(), 50);
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

/** True when this module is the script node was started with. */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && new URL(url).pathname === process.argv[1];
}
