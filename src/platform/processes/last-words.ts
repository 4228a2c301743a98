/** Lines of stderr a failure message quotes, and the most characters they take. */
const LAST_WORDS_LINES = 3;
const LAST_WORDS_CHARS = 500;

/**
 * The last lines a process (an agent, an MCP server) printed on stderr that say something: no blank lines, stack frames
 * (`at ...`) or lone brackets, escape sequences removed; at most LAST_WORDS_LINES, the end kept
 * within LAST_WORDS_CHARS. Empty when it said nothing. Pure.
 */
export function lastWords(stderr: string): string[] {
  const lines = stderr
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^at\s/.test(line) && !/^[\]{}()[,;]+$/.test(line));
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines.slice(-LAST_WORDS_LINES).reverse()) {
    if (chars + line.length > LAST_WORDS_CHARS) {
      if (kept.length === 0) kept.push(`…${line.slice(-(LAST_WORDS_CHARS - 1))}`);
      break;
    }
    kept.unshift(line);
    chars += line.length;
  }
  return kept;
}
