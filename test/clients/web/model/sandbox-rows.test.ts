import { describe, expect, it } from 'vitest';
import { EMPTY_LOG, foldActivity } from '../../../../src/clients/web/model/activity-rows.ts';
import { ev } from '../../model/helpers/fake-client.ts';

describe("the dashboard's activity of a sandbox refusal (trial 29 M1)", () => {
  it('is a warning row of its codon saying what was refused, how often and why', () => {
    const denied = ev('sandbox.denied', {
      codonId: 'probe',
      kind: 'request',
      target: '127.0.0.1:47101',
      method: 'GET',
      path: '/secret',
      reason: 'not in sandbox.network.allow',
      count: 3,
    });
    const rows = foldActivity(EMPTY_LOG, [denied]).rows;
    expect(rows.length).toBe(1);
    expect(rows.at(0)).toMatchObject({
      kind: 'note',
      codonId: 'probe',
      tone: 'warn',
      text: '⊘ probe: the sandbox refused GET 127.0.0.1:47101/secret (3 times): not in sandbox.network.allow',
    });
  });
});
