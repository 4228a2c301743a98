import { describe, expect, it } from 'vitest';
import { CREDENTIAL_HEADER, checkAccess, credentialPrefix } from '../../../src/llm/proxy/access.ts';

const TOKEN = 'the-access-token-0123456789';
const AGENT = 'agent/credential+with=odd chars';
const accepted = [TOKEN, AGENT];

describe('checkAccess', () => {
  it.each([
    ['the token as a path prefix', `/t/${TOKEN}/v1/messages?beta=true`, undefined, '/v1/messages?beta=true'],
    ['the token as the whole path', `/t/${TOKEN}`, undefined, '/'],
    ['the token prefix before a query', `/t/${TOKEN}?x=1`, undefined, '/?x=1'],
    [
      'the agent credential, percent-encoded',
      `${credentialPrefix(AGENT)}/p/0/v1/messages`,
      undefined,
      '/p/0/v1/messages',
    ],
    ['the token in the header', '/v1/messages', TOKEN, '/v1/messages'],
    ['the header among several', '/v1/messages', ['nope', ` ${TOKEN} `], '/v1/messages'],
  ])('passes %s, without the prefix', (_what, url, header, expected) => {
    expect(checkAccess({ url, header }, accepted)).toEqual({ ok: true, url: expected });
  });

  it.each([
    ['nothing', '/v1/messages', undefined],
    ['a /t without a credential', '/t//v1/messages', undefined],
    ['a prefix that is not the /t segment', `/tt/${TOKEN}/v1/messages`, undefined],
  ])('refuses %s with 401 naming both places', (_what, url, header) => {
    const verdict = checkAccess({ url, header }, accepted);
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.reason).toBe('missing');
    expect(verdict.failure.status).toBe(401);
    expect(verdict.failure.message).toContain('/t/<token>');
    expect(verdict.failure.message).toContain(CREDENTIAL_HEADER);
  });

  it.each([
    ['a wrong prefix', '/t/wrong-token/v1/messages', undefined],
    ['a wrong header', '/v1/messages', 'wrong'],
    ['a prefix of the token', `/t/${TOKEN.slice(0, -1)}/v1/messages`, undefined],
  ])('refuses %s with 403', (_what, url, header) => {
    const verdict = checkAccess({ url, header }, accepted);
    expect(verdict).toMatchObject({ ok: false, reason: 'wrong', failure: { status: 403 } });
    // The message never echoes what was sent.
    if (!verdict.ok) expect(verdict.failure.message).not.toContain('wrong-token');
  });
});
