/** How much of a client's value an error message repeats. */
export const ECHO_MAX_CHARS = 100;
/** Free text a client gives on purpose (a stop or shutdown reason) is kept longer. */
export const REASON_MAX_CHARS = 1000;

/**
 * A client-supplied value as an answer may repeat it: whole when short, else its first
 * `max` characters and how many more there were. A message built from client input goes through
 * this, so a huge value never comes back (or into the journal, or the log) whole.
 */
export function echo(value: string, max = ECHO_MAX_CHARS): string {
  if (value.length <= max) return value;
  // Never cut a surrogate pair in half: the message would not be valid UTF-16.
  const cut = isHighSurrogate(value.charCodeAt(max - 1)) ? max - 1 : max;
  return `${value.slice(0, cut)}… (${value.length - cut} more characters)`;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
