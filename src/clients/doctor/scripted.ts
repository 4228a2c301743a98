import { relative } from 'node:path';
import { checkScriptFile } from '../../llm/mock-provider/script-check.ts';
import type { CheckResult } from './check-result.ts';

/**
 * `doctor --scripted-provider FILE`: an offline setup, as `ribosome run --scripted-provider FILE`
 * runs it. The scripted provider answers every agent and sentinel (each gets a placeholder key), so
 * no credential is needed, and the provider checked is the script: readable and valid, as
 * `ribosome validate` checks it.
 */
export async function checkScripted(file: string): Promise<CheckResult[]> {
  const credentials: CheckResult = {
    check: 'credentials',
    status: 'ok',
    detail: 'none needed: the scripted provider answers every agent and sentinel',
  };
  const shown = relative(process.cwd(), file) || file;
  const checked = await checkScriptFile(file);
  if (checked.ok) {
    return [
      credentials,
      {
        check: 'provider',
        status: 'ok',
        detail: `scripted provider ${shown}: ${checked.tracks} track(s), ${checked.turns} default turn(s)`,
      },
    ];
  }
  const first = checked.problems.find((p) => p.severity === 'error') ?? checked.problems[0];
  const where = first?.line === undefined ? '' : `:${first.line}${first.column ? `:${first.column}` : ''}`;
  return [
    credentials,
    {
      check: 'provider',
      status: 'fail',
      detail: `scripted provider ${shown}${where}: ${first?.message ?? 'not a valid script'}`,
      fix: `\`ribosome validate ${shown}\` lists every problem (the format: examples/scripts/README.md)`,
    },
  ];
}
