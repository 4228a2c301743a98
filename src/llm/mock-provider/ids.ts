/**
 * Ids shaped like the real APIs' (Anthropic `msg_01...`, `toolu_01...`, `req_011C...`; OpenAI
 * `resp_<hex>`, `fc_<hex>`, `ctc_<hex>`, `call_...`; Gemini's response ids), random per call.
 */
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
  /** OpenAI object ids: `resp_`, `msg_`, `fc_`, `ctc_`, `rs_` followed by 48 hex digits. */
  openAiId(prefix: 'resp' | 'msg' | 'fc' | 'ctc' | 'rs'): string;
  /** The call_id pairing an OpenAI function_call with its output. */
  callId(): string;
  /** Gemini's responseId. */
  geminiResponseId(): string;
};

export const randomIds: IdSource = {
  messageId: () => `msg_01${base58(22)}`,
  toolUseId: () => `toolu_01${base58(22)}`,
  requestId: () => `req_011C${base58(20)}`,
  signature: () => randomBytes(96).toString('base64'),
  openAiId: (prefix) => `${prefix}_${randomBytes(24).toString('hex')}`,
  callId: () => `call_${base58(24)}`,
  geminiResponseId: () => randomBytes(15).toString('base64url'),
};
