/**
 * Final, unmasked WebSocket text frames (server to client, RFC 6455 5.2) for each payload, one after
 * the other in one buffer: a commit's events are framed once and that buffer is written to every
 * client, instead of one `ws.send` per event per client. Payloads must be UTF-8 text.
 */
export function textFrames(payloads: readonly Buffer[]): Buffer {
  let size = 0;
  for (const p of payloads) size += headerSize(p.length) + p.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of payloads) {
    out[at] = 0x81; // FIN + text
    if (p.length < 126) {
      out[at + 1] = p.length;
      at += 2;
    } else if (p.length < 65_536) {
      out[at + 1] = 126;
      out.writeUInt16BE(p.length, at + 2);
      at += 4;
    } else {
      out[at + 1] = 127;
      out.writeBigUInt64BE(BigInt(p.length), at + 2);
      at += 10;
    }
    at += p.copy(out, at);
  }
  return out;
}

/** The header of one unmasked text frame of `length` bytes (its payload written after it). */
export function textFrameHeader(length: number): Buffer {
  const header = Buffer.allocUnsafe(headerSize(length));
  header[0] = 0x81; // FIN + text
  if (length < 126) header[1] = length;
  else if (length < 65_536) {
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return header;
}

function headerSize(length: number): number {
  return length < 126 ? 2 : length < 65_536 ? 4 : 10;
}
