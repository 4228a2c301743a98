import { costOf } from '../pricing.ts';
import { usageReader } from '../spend/response-usage.ts';
import { admit, type SpendGate } from '../spend/spend-gate.ts';
import { apiOf, callOf, cappedBody } from '../spend/worst-case.ts';
import type { ExchangeFailure } from './errors.ts';

/** How an exchange the budget let through ends, for the money it held. */
export type SpendMeter = {
  /** The provider's answer head came. */
  answer(status: number, contentType: string | undefined): void;
  chunk(bytes: Buffer): void;
  /**
   * `complete`: its body ended normally; `cut`: it ended otherwise (the agent left, the stream broke);
   * `unsent`: the provider was never reached. Later calls do nothing.
   */
  end(how: 'complete' | 'cut' | 'unsent'): void;
};

export type SpendStep =
  | { kind: 'refuse'; failure: ExchangeFailure }
  /** Forward `body` (the request's own bytes when undefined), and feed the meter its answer. */
  | { kind: 'forward'; body?: Buffer; meter: SpendMeter };

/** The proxy's budget check of one request; undefined: nothing to check (no budget, no model call). */
export type SpendCheck = (method: string, url: string, body: Buffer) => SpendStep | undefined;

/**
 * The budget check before each model request through the proxy (docs/unattended.md#budgets): its
 * worst case is held while it is in flight, its output limit capped to what the budget can pay, or
 * it is refused with a 400 marked final (`x-should-retry: false`), which no agent CLI retries, and the
 * codon is stopped. `gate` is read at each request: the engine's budgets, once they exist.
 */
export function createSpendCheck(gate: () => SpendGate | undefined): SpendCheck {
  return (method, url, body) => {
    const budgets = gate();
    // Cheap tests first: most exchanges of a run without a cost limit end here.
    if (!budgets || !apiOf(method, url) || budgets.room() === undefined) return undefined;
    const call = callOf(method, url, body);
    if (!call) return undefined;
    const admission = admit(budgets, call);
    if (admission.kind === 'free') return undefined;
    if (admission.kind === 'refuse') {
      const message = `Ribosome: ${admission.message}; the request was not sent.`;
      return { kind: 'refuse', failure: { code: 'BUDGET_EXHAUSTED', status: 400, message, final: true } };
    }
    const { hold } = admission;
    let status = 0;
    let reader: ReturnType<typeof usageReader> | undefined;
    let ended = false;
    const meter: SpendMeter = {
      answer(code, contentType) {
        status = code;
        // An error answer costs nothing; its bytes are not read.
        if (code >= 200 && code < 300) reader = usageReader(call.api, contentType);
      },
      chunk(bytes) {
        reader?.push(bytes);
      },
      end(how) {
        if (ended) return;
        ended = true;
        if (how === 'unsent' || status >= 300) {
          hold.settle(0);
          return;
        }
        const usage = how === 'complete' ? reader?.end() : undefined;
        hold.settle(usage ? costOf(call.model, usage).usd : undefined);
      },
    };
    const capped = admission.maxOutput === undefined ? undefined : cappedBody(call, admission.maxOutput);
    return { kind: 'forward', ...(capped ? { body: capped } : {}), meter };
  };
}
