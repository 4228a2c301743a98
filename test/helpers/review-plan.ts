import type { ScriptInput, Turn } from '../../src/llm/mock-provider/script-schema.ts';

/**
 * The plan and scripted provider the review tests share (engine and dashboard): codon one writes
 * b.txt; two adds a new file and changes line 3 of b.txt; three answers. A redo that carries codon
 * two's review, and a message carrying codon one's, each have a track of their own, so a test sees
 * which request carried what.
 */
export const REVIEW_PLAN = `name: reviewed
agent: builtin
model: claude-sonnet-4-5
codons:
  - id: one
    name: One
    prompt: Do one.
  - id: two
    name: Two
    prompt: Do two.
  - id: three
    name: Three
    prompt: Do three.
`;
export const B_BEFORE = 'b1\nb2\nb3\nb4\nb5\n';
export const B_AFTER = 'b1\nb2\nB3 changed\nb4\nb5\n';

export const reply = (text: string): Turn => ({ content: [{ text }] });
export const write = (file: string, content: string): Turn => ({
  content: [{ tool_use: { name: 'Write', input: { file_path: file, content } } }],
});
export const bash = (command: string): Turn => ({
  content: [{ tool_use: { name: 'Bash', input: { command, timeout: 600000 } } }],
});

/** The script, codon two's turns given (by default: write `newFile`, change b.txt, answer). */
export function reviewScript(
  newFile: { path: string; content: string },
  two?: ScriptInput['turns'],
): ScriptInput {
  return {
    tracks: [
      {
        name: 'redo',
        match: { firstUser: 'Review of the changes of codon two' },
        turns: [write('redone.txt', 'r\n'), reply('Redone.')],
      },
      {
        name: 'heard',
        match: { lastUser: 'Review of the changes of codon one' },
        turns: [write('heard.txt', 'h\n'), reply('Heard.')],
      },
      { name: 'one', match: { firstUser: 'Do one.' }, turns: [write('b.txt', B_BEFORE), reply('One done.')] },
      {
        name: 'two',
        match: { firstUser: 'Do two.' },
        turns: two ?? [write(newFile.path, newFile.content), write('b.txt', B_AFTER), reply('Two done.')],
      },
      { name: 'three', match: { firstUser: 'Do three.' }, turns: [reply('Three done.')] },
    ],
  };
}
