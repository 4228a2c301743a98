import { describe, expect, it } from 'vitest';
import { isDashboardOrigin, isLoopbackHost, isOriginAllowed } from '../../src/server/origin.ts';

describe('isOriginAllowed', () => {
  it.each([
    [undefined, [], true],
    ['', [], true],
    ['http://localhost:3000', [], true],
    ['http://127.0.0.1', [], true],
    ['https://[::1]:8443', [], true],
    ['http://evil.example', [], false],
    ['http://localhost.evil.example', [], false],
    ['null', [], false],
    ['file://', [], false],
    ['http://evil.example', ['http://evil.example'], true],
    ['http://other.example', ['http://evil.example'], false],
    ['http://any.example', ['*'], true],
  ])('%s with %j -> %s', (origin, allowed, expected) => {
    expect(isOriginAllowed(origin, allowed)).toBe(expected);
  });
});

describe('isDashboardOrigin (ribosome run --web)', () => {
  const bound = { port: 8002, host: '10.0.0.5', tokenRequired: false };
  const any = { port: 8002, host: '0.0.0.0', tokenRequired: true };
  it.each([
    ['http://10.0.0.5:8002', bound, '10.0.0.5:8000', true],
    ['http://10.0.0.5:8003', bound, '10.0.0.5:8000', false],
    ['https://10.0.0.5:8002', bound, '10.0.0.5:8000', false],
    // Without a token, the name the request used is not enough (DNS rebinding).
    ['http://rebound.example:8002', bound, 'rebound.example:8000', false],
    ['http://box.example:8002', any, 'box.example:8000', true],
    ['http://evil.example:8002', any, 'box.example:8000', false],
    ['http://box.example:8002', any, undefined, false],
    ['http://[::1]:8002', { port: 8002, host: '::1', tokenRequired: false }, undefined, true],
  ] as const)('%s from %j via %s -> %s', (origin, dashboard, host, expected) => {
    expect(isDashboardOrigin(origin, dashboard, host)).toBe(expected);
  });

  it('allows nothing before the dashboard listens', () => {
    expect(isDashboardOrigin('http://10.0.0.5:8002', undefined, '10.0.0.5:8000')).toBe(false);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.2', false],
  ])('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
