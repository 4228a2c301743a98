const SGR = new RegExp(`${String.fromCharCode(27)}\\[([0-9;]*)m`, 'g');

/** Whether text sets a foreground or background colour (SGR 30-38, 40-48, 90-97, 100-107); resets do not count. */
export function hasColour(text: string): boolean {
  for (const match of text.matchAll(SGR)) {
    for (const param of (match[1] ?? '').split(';').map(Number)) {
      if ((param >= 30 && param <= 38) || (param >= 40 && param <= 48)) return true;
      if ((param >= 90 && param <= 97) || (param >= 100 && param <= 107)) return true;
    }
  }
  return false;
}
