import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes a plan and a provider script into `dir`; returns their paths. */
export function writePlanAndScript(
  dir: string,
  plan: string,
  script: string,
): { plan: string; script: string } {
  const planPath = join(dir, 'plan.yaml');
  const scriptPath = join(dir, 'script.yaml');
  writeFileSync(planPath, plan);
  writeFileSync(scriptPath, script);
  return { plan: planPath, script: scriptPath };
}

/** A plan of `ids.length` codons for the built-in agent. */
export function simplePlan(ids: string[], extra = ''): string {
  return `name: test\nagent: builtin\ncodons:\n${ids
    .map((id) => `  - id: ${id}\n    name: Codon ${id}\n    prompt: Do ${id}.\n${extra}`)
    .join('')}`;
}

/** Script turns: one codon that writes `file` with `content` then ends. */
export function writeTurns(file: string, content: string): string {
  return `  - content:
      - text: Writing ${file}.
      - tool_use: { name: Write, input: { file_path: ${file}, content: ${JSON.stringify(content)} } }
  - content:
      - text: Wrote ${file}.
`;
}

/** Script turns: one codon whose agent runs a long Bash command (marked so a test can find it). */
export function stuckTurns(marker: number): string {
  return `  - content:
      - tool_use: { name: Bash, input: { command: "sleep ${marker}", timeout: 600000 } }
`;
}

/** How a codon's agent fares under `codonScript`: writes `<id>.txt`, a provider error, or a long Bash command. */
export type CodonBehaviour = 'ok' | 500 | 429 | { sleep: number };

/**
 * A provider script with one track per codon of `simplePlan` (matched on its prompt `Do <id>.`),
 * replayed for every attempt: the same codon fares the same way each time it runs.
 */
export function codonScript(behaviours: Record<string, CodonBehaviour>): string {
  const turns = (id: string, b: CodonBehaviour) =>
    b === 'ok'
      ? writeTurns(`${id}.txt`, `${id} done`)
      : typeof b === 'number'
        ? `  - error: { status: ${b}${b === 429 ? ', retryAfter: 0' : ''} }\n`
        : stuckTurns(b.sleep);
  const tracks = Object.entries(behaviours).map(
    ([id, b]) =>
      `  - name: ${id}\n    match: { firstUser: "Do ${id}." }\n    loop: true\n    turns:\n${turns(id, b).replace(/^(?=.)/gm, '    ')}`,
  );
  return tracks.length > 0 ? `tracks:\n${tracks.join('')}turns: []\n` : 'turns: []\n';
}
