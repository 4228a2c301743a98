/** The proxy's cassette hooks of a recording run: every exchange forwarded, its answer recorded. */
import type { SecretRedactor } from '../../platform/credentials/secret-redactor.ts';
import type { Placeholders } from './fingerprint.ts';
import type { CassetteHooks } from './hooks.ts';
import { requestKey } from './request-key.ts';
import type { CassetteWriter } from './writer.ts';

export function recordHooks(
  writer: CassetteWriter,
  options: { placeholders: Placeholders; secrets?: SecretRedactor | undefined },
): CassetteHooks {
  return {
    exchange({ caller, method, url, body }) {
      return { kind: 'forward', tap: writer.begin(caller, requestKey(method, url, body, options)) };
    },
  };
}
