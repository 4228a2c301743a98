/**
 * `ribosome log` (and `export`) through the real binary against a real execution whose plan names a codon with
 * terminal escapes (window title, clipboard, clear screen) and whose agent writes a file with a
 * right-to-left override in its name: what it prints holds none of those bytes, and shows each as a
 * visible stand-in, from the journal and from the live server alike.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eResources } from '../../helpers/e2e-resources.ts';
import { runCli } from '../../helpers/server-process.ts';

const { serve } = e2eResources();

/** The codon's name, as YAML writes it: OSC 0 (title), OSC 52 (clipboard), CSI 2J (clear), RLO. */
const NAME_YAML = '"x\\e]0;pwned\\a\\e]52;c;cm0gLXJmIH4=\\a\\e[2J\\u202eevil"';
const NAME_SHOWN = 'x␛]0;pwned␇␛]52;c;cm0gLXJmIH4=␇␛[2J<U+202E>evil';
const FILE = 'notes\u202etxt.md';
const PLAN = `name: hostile\nagent: builtin\ncodons:\n  - id: one\n    name: ${NAME_YAML}\n    prompt: Do one.\n`;
const SCRIPT = `turns:
  - content:
      - text: "Writing \\e]0;agent\\a it."
      - tool_use: { name: Write, input: { file_path: ${JSON.stringify(FILE)}, content: "hi" } }
  - content:
      - text: Wrote it.
`;

/** ESC, BEL, any other C0 control but LF, C1 controls, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

async function cli(args: string[]) {
  const proc = runCli(args);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('ribosome log of hostile names', () => {
  it('prints no escape, control or bidi character of a codon name or a file name, only stand-ins', async () => {
    const { server, client, exec } = await serve(PLAN, SCRIPT);
    await client.next('server.idle', (e) => e.data.reason === 'all-codons-completed', 60_000);
    for (const args of [
      ['--execution', exec],
      ['--url', server.url],
    ]) {
      const out = await cli(['log', ...args]);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).not.toMatch(RAW);
      const lines = out.stdout.split('\n');
      expect(lines).toContain(`> one: ${NAME_SHOWN} (builtin)`);
      expect(lines).toContain('    file  created notes<U+202E>txt.md');
      expect(lines).toContain('    says  Writing ␛]0;agent␇ it.');
    }
    // export names the codons it hands back.
    const exported = await cli(['export', '--execution', exec, '--patch', join(exec, '..', 'one.patch')]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).not.toMatch(RAW);
    expect(exported.stdout).toContain(`(${NAME_SHOWN})`);
  }, 90_000);
});
