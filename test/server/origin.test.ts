import { describe, expect, it } from 'vitest';
import { isOriginAllowed } from '../../src/server/origin.ts';

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
