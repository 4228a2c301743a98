import { describe, expect, it } from 'vitest';
import { hostAllowed, matchesHost, parseHostPort } from '../../../src/platform/sandbox/host-match.ts';

describe('matchesHost', () => {
  it('lets a name without a port through on 80 and 443 only', () => {
    expect(matchesHost('registry.npmjs.org', { host: 'registry.npmjs.org', port: 443 })).toBe(true);
    expect(matchesHost('registry.npmjs.org', { host: 'registry.npmjs.org', port: 80 })).toBe(true);
    expect(matchesHost('registry.npmjs.org', { host: 'registry.npmjs.org', port: 22 })).toBe(false);
  });

  it('treats an IP literal without a port as a name: 80 and 443, not the control port beside them', () => {
    expect(matchesHost('127.0.0.1', { host: '127.0.0.1', port: 443 })).toBe(true);
    expect(matchesHost('127.0.0.1', { host: '127.0.0.1', port: 7400 })).toBe(false);
  });

  it('lets host:port through on that port only', () => {
    expect(matchesHost('127.0.0.1:4873', { host: '127.0.0.1', port: 4873 })).toBe(true);
    expect(matchesHost('127.0.0.1:4873', { host: '127.0.0.1', port: 443 })).toBe(false);
    expect(matchesHost('127.0.0.1:4873', { host: '127.0.0.2', port: 4873 })).toBe(false);
  });

  it('compares names case-insensitively and ignores a trailing dot', () => {
    expect(matchesHost('Registry.NPMjs.org', { host: 'registry.npmjs.org.', port: 443 })).toBe(true);
  });

  it('matches *.domain below the domain at any depth, not the domain itself nor a look-alike', () => {
    expect(matchesHost('*.github.com', { host: 'api.github.com', port: 443 })).toBe(true);
    expect(matchesHost('*.github.com', { host: 'a.b.github.com', port: 443 })).toBe(true);
    expect(matchesHost('*.github.com', { host: 'github.com', port: 443 })).toBe(false);
    expect(matchesHost('*.github.com', { host: 'evilgithub.com', port: 443 })).toBe(false);
    expect(matchesHost('*.github.com:8443', { host: 'api.github.com', port: 8443 })).toBe(true);
  });

  it('matches bracketed IPv6 entries', () => {
    expect(matchesHost('[::1]:9000', { host: '::1', port: 9000 })).toBe(true);
    expect(matchesHost('[::1]', { host: '::1', port: 9000 })).toBe(false);
  });

  it('lets nothing through an empty allow list', () => {
    expect(hostAllowed([], { host: 'example.com', port: 443 })).toBe(false);
    expect(hostAllowed(['a.com', 'example.com'], { host: 'example.com', port: 443 })).toBe(true);
  });
});

describe('parseHostPort', () => {
  it('reads a CONNECT target, IPv6 in brackets, and refuses what is not one', () => {
    expect(parseHostPort('Example.com:443')).toEqual({ host: 'example.com', port: 443 });
    expect(parseHostPort('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    expect(parseHostPort('example.com')).toBeUndefined();
    expect(parseHostPort('example.com:99999')).toBeUndefined();
    expect(parseHostPort('a/b:80')).toBeUndefined();
  });
});
