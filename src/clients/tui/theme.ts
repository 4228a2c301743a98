import React from 'react';
import type { Tone } from '../model/tone.ts';

/** Turns a tone (what a line means: model/tone.ts) into a colour, or into nothing under NO_COLOR. */
export type Theme = {
  color: boolean;
  /** Colour name for Ink's `color` prop, or undefined (NO_COLOR, or the plain tone). */
  tone(tone: Tone | undefined): string | undefined;
};

const COLORS: Record<Tone, string | undefined> = {
  accent: 'cyan',
  ok: 'green',
  bad: 'red',
  warn: 'yellow',
  muted: 'gray',
  info: 'blue',
  plain: undefined,
};

export function makeTheme(color: boolean): Theme {
  return { color, tone: (t) => (color && t ? COLORS[t] : undefined) };
}

/** https://no-color.org: a NO_COLOR that is present and not empty turns colour off. */
export function colorAllowed(env: NodeJS.ProcessEnv): boolean {
  const value = env.NO_COLOR;
  return value === undefined || value === '';
}

export const ThemeContext = React.createContext<Theme>(makeTheme(true));

export function useTheme(): Theme {
  return React.useContext(ThemeContext);
}
