/** `ribosome run --model`: the plan's model for every codon without one of its own. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { killAll, runToEnd, tempDir } from '../../helpers/server-process.ts';

const temps: Array<{ remove(): void }> = [];
afterEach(() => killAll());
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const plan = `name: models
agent: builtin
model: plan-model
codons:
  - id: a
    prompt: Do a.
  - id: b
    prompt: Do b.
    model: own-model
`;
/** Each codon writes `<id>.txt` holding the model its requests named. */
const track = (id: string, model: string) =>
  `  - name: ${id}-${model}\n    match: { firstUser: "Do ${id}.", model: ${model} }\n    turns:\n${writeTurns(`${id}.txt`, model).replace(/^(?=.)/gm, '    ')}`;
const script = `tracks:\n${track('a', 'cli-model')}${track('a', 'plan-model')}${track('b', 'own-model')}turns: []\n`;

function files() {
  const t = tempDir();
  temps.push(t);
  return { ...writePlanAndScript(t.path, plan, script), exec: join(t.path, 'exec') };
}

describe('ribosome run --model', () => {
  it("overrides the plan's model; a codon with its own model keeps it", async () => {
    const f = files();
    const result = await runToEnd(f.plan, f.exec, f.script, ['--model', 'cli-model']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(f.exec, 'agentRoot/a.txt'), 'utf8')).toBe('cli-model');
    expect(readFileSync(join(f.exec, 'agentRoot/b.txt'), 'utf8')).toBe('own-model');
  });

  it('without it, the plan model is used', async () => {
    const f = files();
    const result = await runToEnd(f.plan, f.exec, f.script);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(f.exec, 'agentRoot/a.txt'), 'utf8')).toBe('plan-model');
  });

  it.each([[''], ['two words'], [' ']])('refuses --model %j: exit 2, saying why', async (value) => {
    const f = files();
    const result = await runToEnd(f.plan, f.exec, f.script, ['--model', value]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--model must be a model id');
  });
});
