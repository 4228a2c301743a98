import type { CheckResult } from './check-result.ts';

/** Parses a `>=MAJOR.MINOR[.PATCH]` range (the only form package.json `engines.node` uses here). */
export function minimumOf(range: string): number[] | undefined {
  const match = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range);
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

function atLeast(version: string, minimum: number[]): boolean {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const have = parts[i] ?? 0;
    const want = minimum[i] ?? 0;
    if (have !== want) return have > want;
  }
  return true;
}

/** `version` is the running Node's (process.versions.node); `range` is package.json `engines.node`. */
export function checkNodeVersion(version: string, range: string): CheckResult {
  const minimum = minimumOf(range);
  if (!minimum) return { check: 'node', status: 'warn', detail: `v${version}; cannot read range "${range}"` };
  if (atLeast(version, minimum))
    return { check: 'node', status: 'ok', detail: `v${version} (needs ${range})` };
  return {
    check: 'node',
    status: 'fail',
    detail: `v${version}; needs ${range} (type stripping runs the .ts sources)`,
    fix: `install Node ${minimum.join('.')} or newer, or run bin/ribosome (it uses the Node in node_modules)`,
  };
}
