import { describe, expect, it } from 'vitest';
import { parseTarget, type Target } from '../../../src/platform/http/target.ts';
import { decideConnect, decideRequest } from '../../../src/platform/sandbox/gate-rules.ts';

function target(url: string): Target {
  const result = parseTarget(url);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

const proxy = target('http://127.0.0.1:7001/t/cred/p/1');
const bare = target('http://127.0.0.1:7001');
const anthropic = target('https://api.anthropic.com');
const allow = ['registry.npmjs.org', '127.0.0.1:4873'];
const get = (url: string) => ({ method: 'GET', url });

describe('decideRequest', () => {
  it("passes the route's own paths, origin-form or absolute-form to its host", () => {
    expect(decideRequest(proxy, allow, get('/t/cred/p/1/v1/messages?beta=1'))).toEqual({
      kind: 'route',
      path: '/t/cred/p/1/v1/messages?beta=1',
    });
    expect(decideRequest(proxy, allow, get('http://localhost:7001/t/cred/p/1/v1/models'))).toEqual({
      kind: 'route',
      path: '/t/cred/p/1/v1/models',
    });
  });

  it("refuses paths outside the route's base, climbing out of it, or into another route of the proxy", () => {
    const refused = (route: Target, url: string) => {
      const verdict = decideRequest(route, allow, get(url));
      return verdict.kind === 'deny' ? verdict.denial : undefined;
    };
    expect(refused(proxy, '/p/9/x')).toEqual({
      kind: 'request',
      target: '127.0.0.1:7001',
      method: 'GET',
      path: '/p/9/x',
      reason: "outside the LLM route's base path",
    });
    expect(refused(proxy, '/t/cred/p/1x')?.reason).toBe("outside the LLM route's base path");
    expect(refused(proxy, '/t/cred/p/1/../2/v1')?.reason).toBe("outside the LLM route's base path");
    expect(refused(proxy, '/t/cred/p/1/%2e%2e/2/v1')?.reason).toBe("outside the LLM route's base path");
    expect(refused(proxy, '/t/cred/p/1%2f..%2f2')?.reason).toBe("outside the LLM route's base path");
    expect(refused(bare, '/p/9/v1/messages')?.reason).toBe('another route of the LLM proxy');
    expect(refused(bare, '/t/other/v1')?.reason).toBe('another route of the LLM proxy');
    expect(refused(bare, 'http://127.0.0.1:7001/p/0/v1')?.reason).toBe('another route of the LLM proxy');
  });

  it('forwards to allowed hosts and refuses the rest, naming host:port and path without the query', () => {
    expect(decideRequest(proxy, allow, get('http://127.0.0.1:4873/pkg?x=1'))).toEqual({
      kind: 'forward',
      protocol: 'http:',
      to: { host: '127.0.0.1', port: 4873 },
      path: '/pkg?x=1',
    });
    expect(decideRequest(proxy, allow, get('http://127.0.0.1:7400/control?token=s'))).toEqual({
      kind: 'deny',
      denial: {
        kind: 'request',
        target: '127.0.0.1:7400',
        method: 'GET',
        path: '/control',
        reason: 'not in sandbox.network.allow',
      },
    });
  });
});

describe('decideConnect', () => {
  it('tunnels to allowed hosts and to an https route, refusing others', () => {
    expect(decideConnect(proxy, allow, 'registry.npmjs.org:443')).toEqual({
      kind: 'tunnel',
      to: { host: 'registry.npmjs.org', port: 443 },
    });
    expect(decideConnect(anthropic, [], 'api.anthropic.com:443').kind).toBe('tunnel');
    expect(decideConnect(proxy, allow, 'evil.example:443')).toEqual({
      kind: 'deny',
      denial: { kind: 'connect', target: 'evil.example:443', reason: 'not in sandbox.network.allow' },
    });
  });

  it('never tunnels raw to a loopback LLM proxy, which would skip the path rules: it reads the tunnel itself', () => {
    expect(decideConnect(proxy, ['127.0.0.1:7001'], '127.0.0.1:7001')).toEqual({ kind: 'inner' });
    expect(decideConnect(proxy, [], '127.0.0.1:7001')).toEqual({ kind: 'inner' });
  });
});
