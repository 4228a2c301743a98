import { describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../../src/platform/sandbox/env.ts';
import type { SandboxLaunch } from '../../../src/platform/sandbox/launch.ts';

const base = { writable: [], readOnly: [], hidden: [] };
const gated: SandboxLaunch = {
  ...base,
  network: { kind: 'gated', socket: '/tmp/rsb-x/net.sock', port: 4123 },
};
const open: SandboxLaunch = { ...base, network: { kind: 'open' } };

describe('sandboxEnv', () => {
  it('points every proxy variable at the gate, drops NO_PROXY, and turns on Node fetch proxying', () => {
    const env = sandboxEnv(gated, {
      PATH: '/usr/bin',
      NO_PROXY: 'localhost',
      no_proxy: '*',
      HTTPS_PROXY: 'http://corp:8080',
    });
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      HTTP_PROXY: 'http://127.0.0.1:4123',
      HTTPS_PROXY: 'http://127.0.0.1:4123',
      http_proxy: 'http://127.0.0.1:4123',
      https_proxy: 'http://127.0.0.1:4123',
      NODE_USE_ENV_PROXY: '1',
      TMPDIR: '/tmp',
    });
    expect(env.NO_PROXY).toBeUndefined();
    expect(env.no_proxy).toBeUndefined();
  });

  it('leaves an open network alone but for TMPDIR, and does not change the env it was given', () => {
    const given = { HTTPS_PROXY: 'http://corp:8080', TMPDIR: '/var/tmp/me' };
    expect(sandboxEnv(open, given)).toEqual({ HTTPS_PROXY: 'http://corp:8080', TMPDIR: '/tmp' });
    expect(given.TMPDIR).toBe('/var/tmp/me');
  });
});
