import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { writePlanAndScript, writeTurns } from '../../helpers/plans.ts';
import { killAll, runCli, tempDir } from '../../helpers/server-process.ts';

/**
 * Providers per plan, codon and sentinel: each codon and sentinel reaches its own scripted server,
 * with its own key, with the proxy off and on; the command line's provider replaces the plan's.
 */

const temps: Array<{ remove(): void }> = [];
const providers: MockProvider[] = [];
afterEach(async () => {
  killAll();
  await Promise.all(providers.splice(0).map((p) => p.stop()));
});
afterAll(() => {
  for (const t of temps.splice(0)) t.remove();
});

const NONE = {
  ANTHROPIC_API_KEY: undefined,
  ANTHROPIC_AUTH_TOKEN: undefined,
  CLAUDE_CODE_OAUTH_TOKEN: undefined,
};
const writeFile = (file: string, id: string) => [
  {
    content: [
      { text: `Writing ${file}.` },
      { tool_use: { name: 'Write', input: { file_path: file, content: id } } },
    ],
  },
  { content: [{ text: `Wrote ${file}.` }] },
];
const refuse = { turns: [{ error: { status: 401, message: 'not for this provider' }, repeat: 20 }] };

/** A scripted server that plays codon `id` (writing `<id>.txt`) and refuses anything else. */
async function codonProvider(id: string): Promise<MockProvider> {
  const p = await startMockProvider({
    script: {
      tracks: [{ name: id, match: { firstUser: `Do ${id}.` }, turns: writeFile(`${id}.txt`, id) }],
      ...refuse,
    },
  });
  providers.push(p);
  return p;
}

/** A scripted server that answers sentinel `id` and refuses anything else. */
async function sentinelProvider(id: string): Promise<MockProvider> {
  const p = await startMockProvider({
    script: {
      tracks: [
        {
          name: id,
          match: { header: { 'x-ribosome-sentinel': id } },
          whenExhausted: { content: [{ text: 'Fine.' }] },
        },
      ],
      ...refuse,
    },
  });
  providers.push(p);
  return p;
}

function workDir(plan: string) {
  const t = tempDir();
  temps.push(t);
  return writePlanAndScript(t.path, plan, `turns:\n${writeTurns('one.txt', 'x')}`);
}

/** Runs the plan to its end (exit-when-done); retried when the proxy's port (main + 1) is taken. */
async function runPlan(plan: string, name: string, args: string[], env: NodeJS.ProcessEnv) {
  let result: { code: number | null; stderr: string; exec: string } | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const exec = join(plan, '..', `exec-${name}-${attempt}`);
    const run = runCli(['run', plan, '--headless', '--exit-when-done', '--execution', exec, ...args], {
      env: { RIBOSOME_AGENT_MAX_RETRIES: '0', ...env },
    });
    const timer = setTimeout(() => run.kill('SIGKILL'), 60_000);
    const { code } = await run.exited;
    clearTimeout(timer);
    result = { code, stderr: run.stderr(), exec };
    if (!/Proxy port \d+ .* already in use/.test(result.stderr)) break;
  }
  return result!;
}

const keyOf = (p: MockProvider) => p.requests.map((r) => r.headers['x-api-key']);

describe('providers per codon and sentinel', () => {
  for (const proxy of [false, true]) {
    it(`each codon and sentinel calls its own provider with its own key (proxy ${proxy ? 'on' : 'off'})`, async () => {
      const server = await codonProvider('plain');
      const gateway = await codonProvider('gated');
      const cheap = await sentinelProvider('watch');
      const { plan } = workDir(`name: providers
agent: builtin
codons:
  - id: plain
    prompt: Do plain.
  - id: gated
    prompt: Do gated.
    provider: { baseUrl: "${gateway.url}", apiKeyEnv: GATEWAY_KEY }
    sentinels:
      - id: watch
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [assistant.action] }
        provider: { baseUrl: "${cheap.url}" }
`);
      const run = await runPlan(
        plan,
        'both',
        ['--provider-base-url', server.url, ...(proxy ? ['--proxy'] : [])],
        {
          ...NONE,
          ANTHROPIC_API_KEY: 'usual-key',
          ANTHROPIC_AUTH_TOKEN: 'usual-token',
          GATEWAY_KEY: 'gateway-key',
        },
      );
      expect(run.code, run.stderr).toBe(0);
      for (const id of ['plain', 'gated'])
        expect(readFileSync(join(run.exec, 'agentRoot', `${id}.txt`), 'utf8')).toBe(id);
      // Every request was answered by a turn of its own provider (no refusals), with its key.
      for (const p of [server, gateway, cheap]) {
        expect(p.requests.length).toBeGreaterThan(0);
        expect(p.requests.every((r) => r.track !== null && r.url.startsWith('/v1/messages'))).toBe(true);
      }
      expect(new Set(keyOf(server))).toEqual(new Set(['usual-key']));
      expect(new Set(keyOf(cheap))).toEqual(new Set(['usual-key']));
      // The gateway's key alone: no other credential travels to it.
      expect(new Set(keyOf(gateway))).toEqual(new Set(['gateway-key']));
      expect(gateway.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
      const log = readFileSync(join(run.exec, '.ribosome/logs/server.log'), 'utf8');
      expect(log).not.toContain('gateway-key');
      const logged = log
        .split('\n')
        .filter((l) => l.includes('[LOGGING-MIDDLEWARE]') && l.includes('"model"'));
      const total = server.requests.length + gateway.requests.length + cheap.requests.length;
      // With the proxy on, LoggingMiddleware saw every request to every provider; off, none.
      expect(logged.length).toBe(proxy ? total : 0);
    });
  }

  it("--provider-base-url replaces the plan's provider; without it the plan's is used", async () => {
    const planProvider = await codonProvider('one');
    const cliProvider = await codonProvider('one');
    const { plan } = workDir(`name: cli
agent: builtin
provider: { baseUrl: "${planProvider.url}" }
codons:
  - id: one
    prompt: Do one.
`);
    const overridden = await runPlan(plan, 'cli', ['--provider-base-url', cliProvider.url], NONE);
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(cliProvider.requests.length).toBeGreaterThan(0);
    expect(planProvider.requests).toEqual([]);
    const asPlanned = await runPlan(plan, 'planned', [], NONE);
    expect(asPlanned.code, asPlanned.stderr).toBe(0);
    expect(planProvider.requests.length).toBeGreaterThan(0);
  });

  it('a remote provider whose key variable is unset: exit 2 naming the codon and the variable; offline it runs', async () => {
    const { plan, script } = workDir(`name: missing
agent: builtin
codons:
  - id: one
    prompt: Do one.
    provider: { baseUrl: "https://gateway.invalid", apiKeyEnv: GATEWAY_KEY }
`);
    const refused = await runPlan(plan, 'refused', ['--provider-base-url', 'http://127.0.0.1:9'], {
      ...NONE,
      ANTHROPIC_API_KEY: 'usual-key',
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'codon one calls https://gateway.invalid with the key in GATEWAY_KEY, which is not set',
    );
    expect(existsSync(join(refused.exec, '.ribosome'))).toBe(false);
    // --scripted-provider replaces every provider: nothing leaves the machine, no key is needed.
    writeFileSync(script, `turns:\n${writeTurns('one.txt', 'offline')}`);
    const offline = await runPlan(plan, 'offline', ['--scripted-provider', script], NONE);
    expect(offline.code, offline.stderr).toBe(0);
    expect(readFileSync(join(offline.exec, 'agentRoot', 'one.txt'), 'utf8')).toBe('offline');
  });

  it('an opencode codon against a remote provider with only a bearer token set: exit 2 asking for ANTHROPIC_API_KEY', async () => {
    const { plan } = workDir('name: oc\nagent: opencode\ncodons:\n  - id: one\n    prompt: Do one.\n');
    const refused = await runPlan(plan, 'refused', ['--provider-base-url', 'https://gateway.invalid'], {
      ...NONE,
      ANTHROPIC_AUTH_TOKEN: 'a-token',
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'codon one runs opencode, which authenticates with ANTHROPIC_API_KEY only: ANTHROPIC_AUTH_TOKEN is set',
    );
    expect(existsSync(join(refused.exec, '.ribosome'))).toBe(false);
  });

  it('an opencode codon (after a builtin one) against a remote provider with no credential: the advice names ANTHROPIC_API_KEY only', async () => {
    const { plan } = workDir(
      'name: oc\ncodons:\n  - id: first\n    prompt: Do first.\n  - id: one\n    agent: opencode\n    prompt: Do one.\n',
    );
    const refused = await runPlan(plan, 'none', ['--provider-base-url', 'https://gateway.invalid'], NONE);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'codon one (and 1 more): no credential for the provider https://gateway.invalid: set ANTHROPIC_API_KEY (opencode sends no other credential)',
    );
    expect(refused.stderr).not.toMatch(/ANTHROPIC_AUTH_TOKEN|CLAUDE_CODE_OAUTH_TOKEN/);
    expect(existsSync(join(refused.exec, '.ribosome'))).toBe(false);
  });
  it('a Codex codon and a built-in one with no credential at all: one refusal names every variable to set (issue 30)', async () => {
    const { plan } = workDir(
      'name: both\ncodons:\n  - id: first\n    prompt: Do first.\n  - id: two\n    agent: codex\n    prompt: Do two.\n',
    );
    const refused = await runPlan(plan, 'none', ['--provider-base-url', 'https://gateway.invalid'], NONE);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('OPENAI_API_KEY');
    expect(refused.stderr).toContain('codon first: no credential for the provider https://gateway.invalid');
    expect(existsSync(join(refused.exec, '.ribosome'))).toBe(false);
  });
});

describe("the server's provider from the environment", () => {
  it('ANTHROPIC_BASE_URL names it (SERVICE_RUNTIME_PROVIDER_BASE_URL over it); a gateway on this machine needs no key', async () => {
    const anthropic = await codonProvider('one');
    const service = await codonProvider('one');
    const { plan } = workDir('name: envurl\nagent: builtin\ncodons:\n  - id: one\n    prompt: Do one.\n');
    const viaAnthropic = await runPlan(plan, 'anthropic', [], {
      ...NONE,
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_AUTH_TOKEN: 'gateway-token',
    });
    expect(viaAnthropic.code, viaAnthropic.stderr).toBe(0);
    expect(anthropic.requests.length).toBeGreaterThan(0);
    // The gateway's token went to the gateway named, nowhere else.
    expect(new Set(anthropic.requests.map((r) => r.headers.authorization))).toEqual(
      new Set(['Bearer gateway-token']),
    );
    const before = anthropic.requests.length;
    const viaService = await runPlan(plan, 'service', [], {
      ...NONE,
      ANTHROPIC_BASE_URL: anthropic.url,
      SERVICE_RUNTIME_PROVIDER_BASE_URL: service.url,
    });
    expect(viaService.code, viaService.stderr).toBe(0);
    expect(service.requests.length).toBeGreaterThan(0);
    expect(anthropic.requests.length).toBe(before);
  });
});

describe("provider keys in the agents' environment", () => {
  /** A scripted server on which codon `id` writes the key variables its Bash sees to `env-<id>.txt`. */
  async function envProvider(id: string): Promise<MockProvider> {
    const command = `env | grep -E '^(A_KEY|S_KEY|ANTHROPIC_API_KEY|ANTHROPIC_AUTH_TOKEN)=' | sort > env-${id}.txt`;
    const p = await startMockProvider({
      script: {
        tracks: [
          {
            name: id,
            match: { firstUser: `Do ${id}.` },
            turns: [
              { content: [{ tool_use: { name: 'Bash', input: { command } } }] },
              { content: [{ text: 'Done.' }] },
            ],
          },
        ],
        ...refuse,
      },
    });
    providers.push(p);
    return p;
  }

  it("no agent sees another endpoint's key (a codon's or a sentinel's apiKeyEnv); its own arrives as ANTHROPIC_API_KEY", async () => {
    const server = await envProvider('plain');
    const gateway = await envProvider('gated');
    const cheap = await sentinelProvider('watch');
    const { plan } = workDir(`name: keys
agent: builtin
codons:
  - id: plain
    prompt: Do plain.
    sentinels:
      - id: watch
        model: claude-haiku-4-5
        userPrompt: "{{events}}"
        trigger: { type: event, eventTypes: [tool.result] }
        provider: { baseUrl: "${cheap.url}", apiKeyEnv: S_KEY }
  - id: gated
    prompt: Do gated.
    provider: { baseUrl: "${gateway.url}", apiKeyEnv: A_KEY }
`);
    const run = await runPlan(plan, 'keys', ['--provider-base-url', server.url], {
      ...NONE,
      ANTHROPIC_API_KEY: 'main-key',
      ANTHROPIC_AUTH_TOKEN: 'main-token',
      A_KEY: 'codon-key',
      S_KEY: 'sentinel-key',
    });
    expect(run.code, run.stderr).toBe(0);
    const seen = (id: string) => readFileSync(join(run.exec, 'agentRoot', `env-${id}.txt`), 'utf8');
    expect(seen('plain')).toBe('ANTHROPIC_API_KEY=main-key\nANTHROPIC_AUTH_TOKEN=main-token\n');
    expect(seen('gated')).toBe('ANTHROPIC_API_KEY=codon-key\n');
    // The sentinel still called its provider with its own key.
    expect(new Set(keyOf(cheap))).toEqual(new Set(['sentinel-key']));
  });
});
