import { describe, expect, it } from 'vitest';
import { classifyOutcome, clientStopReason, stoppedMessage } from '../../../src/engine/outcome/failure.ts';

const ended = (message: string, apiErrorStatus: number | null = null) =>
  classifyOutcome({
    exit: { type: 'error', code: 1 },
    result: { isError: true, apiErrorStatus, message },
    timedOut: false,
  }).failureReason;

describe('classifyOutcome: Claude Code without a credential it can use', () => {
  it('"Not logged in" and "Invalid API key" (no API status) are not retriable, as a 401', () => {
    expect(ended('Not logged in · Please run /login')).toEqual({
      type: 'api-error',
      retriable: false,
      message: 'Not logged in · Please run /login',
    });
    expect(ended('Invalid API key · Please run /login')).toMatchObject({
      type: 'api-error',
      retriable: false,
    });
    expect(ended('Failed to authenticate. API Error: 401', 401)).toMatchObject({
      type: 'api-error',
      retriable: false,
    });
  });

  it('other errors without a status stay unknown (no retry policy retries them)', () => {
    expect(ended('something broke')).toEqual({
      type: 'unknown',
      retriable: false,
      message: 'something broke',
    });
    // Only Claude Code's own words are a missing login: a sentence that merely mentions one is not.
    expect(ended('the user is not logged into the VPN')).toMatchObject({ type: 'unknown' });
  });
});

describe('a stopped codon says who stopped it once (retrial 18 L9)', () => {
  const stopped = (reason: string) => stoppedMessage('forceStop', clientStopReason(reason));
  it('the default reason, or none, reads "stopped by a client", not twice', () => {
    expect(stopped('stopped by a client')).toBe('stopped by a client');
    expect(stopped('')).toBe('stopped by a client');
    expect(stopped('Stopped by a client: wrong branch')).toBe('stopped by a client: wrong branch');
  });
  it("a reason of the client's own follows who stopped it", () => {
    expect(stopped('stuck in sleep')).toBe('stopped by a client: stuck in sleep');
  });
});
