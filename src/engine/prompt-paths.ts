/**
 * The two variables a codon prompt may name: `{{agentRoot}}` and `{{dataDir}}` (the data directory's
 * link in the agent root). Any other `{{...}}` is left as written, since prompts may well contain
 * templates of their own; `\{{dataDir}}` writes `{{dataDir}}` itself. Pure.
 */
export type PromptPaths = { agentRoot: string; dataDir?: string | undefined };

const VARIABLE = /(\\?)\{\{\s*(agentRoot|dataDir)\s*\}\}/g;

export function renderPromptPaths(prompt: string, paths: PromptPaths): string {
  return prompt.replace(VARIABLE, (whole, escaped: string, name: 'agentRoot' | 'dataDir') => {
    if (escaped) return whole.slice(1);
    return paths[name] ?? whole;
  });
}
