/**
 * What a line means (a success, a failure, a warning...), not how it looks: the terminal UI's theme
 * turns a tone into a colour, or into nothing under NO_COLOR; the dashboard into a CSS class.
 */
export type Tone = 'accent' | 'ok' | 'bad' | 'warn' | 'muted' | 'info' | 'plain';
