import { describe, expect, it } from 'vitest';
import { checkSandbox } from '../../../src/clients/doctor/sandbox.ts';

describe('doctor: the sandbox check', () => {
  const missing = {
    ok: false as const,
    missing: ['socat'],
    why: 'socat not found',
    install: 'apt-get install socat',
  };

  it('supported: auto confines every agent', () => {
    const check = checkSandbox({ ok: true, bwrap: 'bubblewrap 0.11', socat: 'socat 1.8' });
    expect(check).toMatchObject({
      check: 'sandbox',
      status: 'ok',
      detail: expect.stringContaining('confines'),
    });
  });

  it('missing: a warning that auto runs agents unconfined, with the install command', () => {
    expect(checkSandbox(missing)).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('unconfined'),
      fix: 'install socat: apt-get install socat',
    });
  });

  it('missing while the config file says on: a failure, since runs refuse to start', () => {
    expect(checkSandbox(missing, 'on')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('refuse'),
    });
  });
});
