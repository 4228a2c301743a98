import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { colorAllowed } from '../../../src/clients/tui/theme.ts';
import { codonEnd, codonStart } from '../model/helpers/events.ts';
import { FakeClient } from '../model/helpers/fake-client.ts';
import { hasColour } from './helpers/colour.ts';
import { renderApp } from './helpers/render.ts';

// Ink's colours come from chalk, which only colours when it thinks the terminal can: make it think so.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

afterEach(() => cleanup());

describe('NO_COLOR', () => {
  const history = () => [...codonStart('one', 0), ...codonEnd('one', 'failed'), ...codonStart('two', 1)];

  it('draws in colour by default', async () => {
    const app = renderApp(new FakeClient({ history: history() }), { color: true });
    const frame = await app.waitFor('▶ two');
    expect(hasColour(frame)).toBe(true);
  });

  it('draws no colour at all when colour is off, and still marks what colour would', async () => {
    const app = renderApp(new FakeClient({ history: history() }), { color: false });
    const frame = await app.waitFor('▶ two');
    expect(hasColour(frame)).toBe(false);
    expect(frame).toContain('✗ one');
    expect(frame).toContain('▶ Activity');
  });

  it('reads NO_COLOR as no-color.org says: present and not empty', () => {
    expect(colorAllowed({})).toBe(true);
    expect(colorAllowed({ NO_COLOR: '' })).toBe(true);
    expect(colorAllowed({ NO_COLOR: '1' })).toBe(false);
  });
});
