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
