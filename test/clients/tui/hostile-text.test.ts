import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { codonStart, runStarted, toolCall, toolDone } from '../model/helpers/events.ts';
import { ev, FakeClient } from '../model/helpers/fake-client.ts';
import { renderApp } from './helpers/render.ts';

afterEach(() => cleanup());

/** ESC, BEL and every other C0 control but LF, C1 controls, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('text a plan, an agent or a server wrote, in the terminal UI', () => {
  it('draws its escapes and bidi controls as stand-ins: the frame holds none of them', async () => {
    const name = 'x\u001b]0;pwned\u0007\u001b[2J\u202eevil';
    const file = 'notes\u202etxt.md';
    const history = [
      ...runStarted('run/\u001b]52;c;cm0gLXJm\u0007'),
      ...codonStart('one', 0, name),
      toolCall('one', 'Write', file, { file_path: file, content: 'hi' }),
      toolDone('one', 'Write', `File created: ${file}`),
      ev('file.updated', { path: file, filename: file, content: 'hi', action: 'created' }),
    ];
    // No colour: Ink's own colours are escape sequences too.
    const app = renderApp(new FakeClient({ history }), { color: false, width: 160, height: 40 });
    const frame = await app.waitFor('notes<U+202E>txt.md');
    expect(frame).not.toMatch(RAW);
    expect(frame).toContain('x␛]0;pwned␇␛[2J<U+202E>evil');
    expect(frame).toContain('branch run/␛]52;c;cm0gLXJm␇');
    expect(frame).toContain('Write notes<U+202E>txt.md');
  });
});
