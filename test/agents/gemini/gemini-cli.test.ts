import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  dataDirPolicy,
  geminiArgs,
  geminiEnv,
  maxAttemptsOf,
  sessionFileOf,
} from '../../../src/agents/gemini/gemini-cli.ts';
import { tempDir } from '../../helpers/server-process.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('geminiEnv', () => {
  const server = {
    PATH: '/usr/bin',
    GEMINI_API_KEY: 'server-gemini-key',
    ANTHROPIC_API_KEY: 'sk-ant',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
    GOOGLE_API_KEY: 'google-key',
    TEAM_GEMINI_KEY: 'team-key',
    OTHER_KEY: 'other',
  };

  it("the server's GEMINI_API_KEY, the provider's root as GOOGLE_GEMINI_BASE_URL, no Claude credentials", () => {
    const env = geminiEnv(server, {
      providerBaseUrl: 'https://generativelanguage.googleapis.com',
      isolated: true,
    });
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      GEMINI_API_KEY: 'server-gemini-key',
      GOOGLE_GEMINI_BASE_URL: 'https://generativelanguage.googleapis.com',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    });
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.ANTHROPIC_BASE_URL).toBeUndefined();
    // In its own configuration the key is its only auth.
    expect(env.GOOGLE_API_KEY).toBeUndefined();
    expect(geminiEnv(server, { providerBaseUrl: 'https://x', isolated: false }).GOOGLE_API_KEY).toBe(
      'google-key',
    );
  });

  it("a provider's apiKeyEnv is its key alone; the plan's other key variables are gone", () => {
    const env = geminiEnv(server, {
      providerBaseUrl: 'https://gateway.example',
      apiKeyEnv: 'TEAM_GEMINI_KEY',
      keyVars: ['TEAM_GEMINI_KEY', 'OTHER_KEY'],
      isolated: true,
    });
    expect(env.GEMINI_API_KEY).toBe('team-key');
    expect(env.TEAM_GEMINI_KEY).toBeUndefined();
    expect(env.OTHER_KEY).toBeUndefined();
  });

  it('a provider on this machine without a key gets a placeholder; one elsewhere gets none', () => {
    const none = { PATH: '/usr/bin' };
    expect(
      geminiEnv(none, { providerBaseUrl: 'http://127.0.0.1:4000/p/1', isolated: true }).GEMINI_API_KEY,
    ).toBe('ribosome-offline');
    expect(
      geminiEnv(none, { providerBaseUrl: 'https://x.example', isolated: true }).GEMINI_API_KEY,
    ).toBeUndefined();
    const unset = geminiEnv(server, {
      providerBaseUrl: 'https://x.example',
      apiKeyEnv: 'UNSET_KEY',
      isolated: true,
    });
    expect(unset.GEMINI_API_KEY).toBeUndefined();
  });
});

describe('geminiArgs', () => {
  it("the codon's model, but Gemini CLI's own default in place of the engine's Claude default", () => {
    expect(geminiArgs({ prompt: 'p', model: 'gemini-3-flash-preview' }).slice(-2)).toEqual([
      '-m',
      'gemini-3-flash-preview',
    ]);
    expect(geminiArgs({ prompt: 'p', model: 'claude-sonnet-4-5' }).slice(-2)).toEqual([
      '-m',
      'gemini-2.5-pro',
    ]);
  });
});

describe('dataDirPolicy', () => {
  it('denies its writing tools a path through the link or into the target, the target escaped for the regex', () => {
    expect(dataDirPolicy('/x/agentRoot/ribosome-data', '/data/real.d+1')).toBe(
      `[[rule]]
toolName = ["write_file", "replace"]
argsPattern = "\\"file_path\\":\\"[^\\"]*ribosome-data/"
decision = "deny"
priority = 999

[[rule]]
toolName = ["write_file", "replace"]
argsPattern = "\\"file_path\\":\\"/data/real\\\\.d\\\\+1/"
decision = "deny"
priority = 999
`,
    );
  });
});

describe('maxAttemptsOf', () => {
  it.each([
    [undefined, 3],
    ['1', 1],
    ['10', 10],
    ['0', 3],
    ['11', 3],
    ['two', 3],
  ])('RIBOSOME_GEMINI_MAX_ATTEMPTS=%s -> %s', (value, attempts) => {
    expect(maxAttemptsOf(value === undefined ? {} : { RIBOSOME_GEMINI_MAX_ATTEMPTS: value })).toBe(attempts);
  });
});

describe('sessionFileOf', () => {
  it('finds the file holding the session, the latest written of those carrying its id', () => {
    const t = tempDir();
    cleanups.push(t.remove);
    const id = 'a943685b-301b-4f35-9a1b-592c4b834367';
    const chats = join(t.path, '.gemini', 'tmp', 'agentroot', 'chats');
    mkdirSync(chats, { recursive: true });
    // An imported (forked) session leaves a stub with its id beside the file it goes on in.
    const stub = join(chats, 'session-2026-11-26T21-13-a943685b.jsonl');
    const live = join(chats, 'session-1795727588416-a943685b.jsonl');
    const other = join(chats, 'session-2026-11-26T21-12-a943685b.jsonl');
    writeFileSync(
      stub,
      `{"sessionId":"${id}","lastUpdated":"2026-11-26T21:13:09.333Z"}\n{"$set":{"messages":[]}}\n`,
    );
    writeFileSync(
      live,
      `{"sessionId":"${id}","lastUpdated":"2026-11-26T21:13:09.300Z"}\n{"id":"x","type":"user"}\n{"$set":{"lastUpdated":"2026-11-26T21:13:10.015Z"}}\n`,
    );
    // Same 8 characters, another session.
    writeFileSync(other, `{"sessionId":"a943685b-ffff","lastUpdated":"2026-11-27T00:00:00.000Z"}\n`);
    expect(sessionFileOf(t.path, id)).toBe(live);
    expect(sessionFileOf(t.path, 'bbbbbbbb-0000')).toBeUndefined();
    expect(sessionFileOf(join(t.path, 'nowhere'), id)).toBeUndefined();
  });
});
