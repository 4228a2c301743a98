/**
 * Incremental Server-Sent Events parser (https://html.spec.whatwg.org/multipage/server-sent-events.html).
 * Pure: feed it decoded text in chunks split anywhere (even between \r and \n) and it returns the
 * events completed so far. Comments (`: ping`) are dropped; multi-line `data:` fields are joined with \n.
 * As the spec says, an event still unterminated (no blank line) when the stream ends is discarded: a
 * cut-off stream must not yield a half-written event.
 */

export type SseEvent = {
  /** `event:` field; "message" when the stream gave none. */
  event: string;
  data: string;
  id?: string;
  retry?: number;
};

export type SseParser = {
  /** Parse the next chunk of text; returns events completed by it. */
  feed(chunk: string): SseEvent[];
};

export function createSseParser(): SseParser {
  let buffer = '';
  // A chunk ending in \r may be half of \r\n: remember to drop a \n that starts the next chunk.
  let skipLeadingNewline = false;
  let eventName = '';
  let data: string[] = [];
  let hasData = false;
  let lastId: string | undefined;
  let retry: number | undefined;

  const dispatch = (out: SseEvent[]): void => {
    if (hasData) {
      const event: SseEvent = { event: eventName || 'message', data: data.join('\n') };
      if (lastId !== undefined) event.id = lastId;
      if (retry !== undefined) event.retry = retry;
      out.push(event);
    }
    eventName = '';
    data = [];
    hasData = false;
    retry = undefined;
  };

  const processLine = (line: string, out: SseEvent[]): void => {
    if (line === '') {
      dispatch(out);
      return;
    }
    if (line.startsWith(':')) return; // comment
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        eventName = value;
        break;
      case 'data':
        data.push(value);
        hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) retry = Number(value);
        break;
      default: // unknown fields are ignored by the spec
    }
  };

  const feed = (chunk: string): SseEvent[] => {
    const out: SseEvent[] = [];
    let text = chunk;
    if (skipLeadingNewline && text.startsWith('\n')) text = text.slice(1);
    skipLeadingNewline = false;
    buffer += text;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      processLine(buffer.slice(start, i), out);
      if (ch === '\r') {
        if (i + 1 === buffer.length) skipLeadingNewline = true;
        else if (buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    buffer = buffer.slice(start);
    return out;
  };

  return { feed };
}
