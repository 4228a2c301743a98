/**
 * With the proxy on and the server's default provider (Anthropic's: no --provider-base-url), a Codex
 * or Gemini CLI codon without a provider calls its vendor through a proxy route of its own, never the
 * plain route to Anthropic, so its key goes to its vendor only. Local scripted servers stand for the
 * vendors (RIBOSOME_CODEX_PROVIDER_URL, RIBOSOME_GEMINI_PROVIDER_URL): no request, and no DNS query,
 * leaves the machine.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliBinary } from '../../../src/agents/cli-binary.ts';
import { CODEX } from '../../../src/agents/codex/codex-cli.ts';
import { GEMINI_CLI } from '../../../src/agents/gemini/gemini-cli.ts';
import { type MockProvider, startMockProvider } from '../../../src/llm/mock-provider/server.ts';
import { describeWithClis } from '../../helpers/agent-clis.ts';
import { killAll, runCli, tempDir } from '../../helpers/server-process.ts';

const providers: MockProvider[] = [];
const temps: Array<{ remove(): void }> = [];
afterEach(async () => {
  killAll();
  await Promise.all(providers.splice(0).map((p) => p.stop()));
  for (const t of temps.splice(0)) t.remove();
});

/** A server standing for one vendor: codon `id` writes `<id>.txt` with `tool`; anything else is refused. */
async function vendor(id: string, tool: string, input: Record<string, string>): Promise<MockProvider> {
  const p = await startMockProvider({
    script: {
      tracks: [
        {
          name: id,
          match: { firstUser: `Do ${id}.` },
          turns: [
            { content: [{ text: `Writing ${id}.txt.` }, { tool_use: { name: tool, input } }] },
            { content: [{ text: `Wrote ${id}.txt.` }] },
          ],
        },
      ],
      turns: [{ error: { status: 401, message: 'not for this vendor' }, repeat: 20 }],
    },
  });
  providers.push(p);
  return p;
}

describeWithClis(
  "the proxy gives Codex and Gemini CLI their vendor's default as a route (e2e)",
  [cliBinary(CODEX), cliBinary(GEMINI_CLI)],
  () => {
    it('each codon reaches its own vendor with its own key; nothing goes to the plain route', async () => {
      const openai = await vendor('cx', 'exec_command', { cmd: 'printf cx > cx.txt' });
      const google = await vendor('gm', 'run_shell_command', { command: 'printf gm > gm.txt' });
      const t = tempDir('ribosome-vendor-routes-');
      temps.push(t);
      const plan = join(t.path, 'plan.yaml');
      writeFileSync(
        plan,
        'name: vendor-routes\ncodons:\n  - { id: cx, agent: codex, prompt: Do cx. }\n  - { id: gm, agent: gemini, prompt: Do gm. }\n',
      );
      let code: number | null = null;
      let stderr = '';
      let exec = '';
      // Retried when the proxy's port (the main port + 1) is taken.
      for (let attempt = 0; attempt < 3; attempt++) {
        exec = join(t.path, `exec-${attempt}`);
        const run = runCli(['run', plan, '--proxy', '--headless', '--exit-when-done', '--execution', exec], {
          env: {
            ANTHROPIC_BASE_URL: undefined,
            SERVICE_RUNTIME_PROVIDER_BASE_URL: undefined,
            ANTHROPIC_AUTH_TOKEN: undefined,
            CLAUDE_CODE_OAUTH_TOKEN: undefined,
            ANTHROPIC_API_KEY: 'anthropic-key',
            OPENAI_API_KEY: 'openai-key',
            GEMINI_API_KEY: 'gemini-key',
            RIBOSOME_CODEX_PROVIDER_URL: openai.url,
            RIBOSOME_GEMINI_PROVIDER_URL: google.url,
            RIBOSOME_CODEX_MAX_RETRIES: '0',
            RIBOSOME_GEMINI_MAX_ATTEMPTS: '1',
          },
        });
        const timer = setTimeout(() => run.kill('SIGKILL'), 150_000);
        ({ code } = await run.exited);
        clearTimeout(timer);
        stderr = run.stderr();
        if (!/Proxy port \d+ .* already in use/.test(stderr)) break;
      }
      expect(code, stderr).toBe(0);
      for (const id of ['cx', 'gm'])
        expect(readFileSync(join(exec, 'agentRoot', `${id}.txt`), 'utf8')).toBe(id);
      // Each vendor answered its own codon only, every request with that vendor's key alone.
      expect(openai.requests.length).toBeGreaterThan(0);
      expect(openai.requests.every((r) => r.track === 'cx' && r.url.startsWith('/v1/responses'))).toBe(true);
      expect(new Set(openai.requests.map((r) => r.headers.authorization))).toEqual(
        new Set(['Bearer openai-key']),
      );
      expect(google.requests.length).toBeGreaterThan(0);
      expect(google.requests.every((r) => r.track === 'gm' && r.url.startsWith('/v1beta/models/'))).toBe(
        true,
      );
      expect(new Set(google.requests.map((r) => r.headers['x-goog-api-key']))).toEqual(
        new Set(['gemini-key']),
      );
      for (const r of [...openai.requests, ...google.requests])
        expect(r.headers['x-api-key']).toBeUndefined();
      // Through the proxy (its LoggingMiddleware saw them), and none to Anthropic's host.
      const log = readFileSync(join(exec, '.ribosome/logs/server.log'), 'utf8');
      const logged = log.split('\n').filter((l) => l.includes('[LOGGING-MIDDLEWARE] request'));
      expect(logged.length).toBe(openai.requests.length + google.requests.length);
      expect(log).not.toContain('api.anthropic.com/v1');
      expect(log).not.toMatch(/UPSTREAM_DNS_FAILURE|could not resolve/);
    }, 200_000);
  },
);
