/** Ids shaped like the real API's (`msg_01...`, `toolu_01...`, `req_011C...`), random per call. */
import { randomBytes } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

export type IdSource = {
  messageId(): string;
  toolUseId(): string;
  requestId(): string;
  signature(): string;
};

export const randomIds: IdSource = {
  messageId: () => `msg_01${base58(22)}`,
  toolUseId: () => `toolu_01${base58(22)}`,
  requestId: () => `req_011C${base58(20)}`,
  signature: () => randomBytes(96).toString('base64'),
};
