/**
 * Intruders at a proxy bound beyond loopback (`--proxy-host 0.0.0.0`): requests without the access
 * token, with a wrong one (path or header), with it only in a query, and path traversals (`..`, also
 * percent-encoded or with backslashes, with the right token too) out of a route's prefix, sent while
 * the demo plan runs through the same proxy. Each must be refused (401, 403 or 400, Anthropic-style)
 * and counted (the health answer's x-ribosome-proxy-refused, the log's running count), none may reach
 * the provider, and the run must complete: the server's own agents carry the run's credential.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { RibosomeClient } from '../../src/core/client/index.ts';
import { REFUSED_HEADER } from '../../src/llm/proxy/runner.ts';
import { scratchDir } from './lib/execution.ts';
import { pick, type Scenario } from './lib/scenario.ts';
import { bounded, downVerdict, exitText, indent, type Life, ROOT, startRibosome } from './lib/server.ts';

const TOKEN = 'chaos-proxy-access-token-0123456789';
const RUN_TIMEOUT_MS = 120_000;
const REQUEST_TIMEOUT_MS = 10_000;

type Intruder = { name: string; path: string; headers?: Record<string, string>; status: 400 | 401 | 403 };

const INTRUDERS: readonly Intruder[] = [
  { name: 'no credential', path: '/v1/messages', status: 401 },
  { name: 'token in a query only', path: `/v1/messages?token=${TOKEN}`, status: 401 },
  {
    name: 'bearer token only',
    path: '/v1/messages',
    headers: { authorization: `Bearer ${TOKEN}` },
    status: 401,
  },
  { name: 'wrong token in the path', path: '/t/not-the-token/v1/messages', status: 403 },
  { name: 'wrong token header', path: '/v1/messages', headers: { 'x-ribosome-token': 'nope' }, status: 403 },
  { name: 'traversal without a token', path: '/p/0/../../tenant-b/v1/messages', status: 401 },
  { name: 'traversal', path: `/t/${TOKEN}/../../tenant-b/v1/messages`, status: 400 },
  { name: 'encoded traversal', path: `/t/${TOKEN}/%2e%2e/%2E%2e/tenant-b/v1/messages`, status: 400 },
  { name: 'encoded-slash traversal', path: `/t/${TOKEN}/v1%2f..%2f..%2ftenant-b/v1/messages`, status: 400 },
  { name: 'backslash traversal', path: `/t/${TOKEN}/v1\\..\\..\\tenant-b/v1/messages`, status: 400 },
];

type Answer = { status: number; clean: boolean } | { failed: string };

/** One request, its path sent as it is, answered or failed within bounds. */
function send(base: string, intruder: Intruder): Promise<Answer> {
  const body = JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const request = http.request({
      hostname,
      port,
      path: intruder.path,
      method: 'POST',
      agent: false,
      timeout: REQUEST_TIMEOUT_MS,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-api-key': 'chaos',
        ...intruder.headers,
      },
    });
    request.on('timeout', () => request.destroy(new Error('no answer in time')));
    request.on('error', (error) => resolve({ failed: error.message }));
    request.on('response', (response) => {
      let text = '';
      response.on('data', (d: Buffer) => {
        text += d.toString();
      });
      response.on('end', () => {
        let clean = false;
        try {
          const parsed = JSON.parse(text) as { type?: string; error?: { message?: string } };
          clean = parsed.type === 'error' && typeof parsed.error?.message === 'string';
        } catch {}
        resolve({ status: response.statusCode ?? 0, clean });
      });
    });
    request.end(body);
  });
}

const allDone = (e: { type: string; data: Record<string, unknown> }) =>
  e.type === 'server.idle' && e.data.reason === 'all-codons-completed';

export const proxyAccess: Scenario = {
  name: 'proxy-access',
  summary:
    'requests without the token and path traversals at a proxy beyond loopback while the demo runs through it: refused, counted, the run completes',
  async run(ctx) {
    const dir = scratchDir(ctx.defer, 'ribosome-chaos-proxy-access-');
    const exec = join(dir, 'exec');
    let life: Life;
    try {
      life = await startRibosome([
        'run',
        join(ROOT, 'examples/demo/plan.yaml'),
        '--headless',
        '--execution',
        exec,
        '--token',
        TOKEN,
        '--proxy',
        '--proxy-host',
        '0.0.0.0',
        '--scripted-provider',
        join(ROOT, 'examples/scripts/demo.yaml'),
      ]);
    } catch (error) {
      ctx.tally.fail(`proxy-access: the server did not start: ${(error as Error).message}`);
      return;
    }
    ctx.defer(() => life.kill());
    // Bound to 0.0.0.0; the campaign stays on loopback.
    const proxyUrl = `http://127.0.0.1:${life.port + 1}`;
    const client = await RibosomeClient.connect(life.url, {
      mode: 'readonly',
      sendPreviousEvents: true,
      token: TOKEN,
    });
    ctx.defer(() => client.close());
    let done = client.handshake.eventHistory.some(allDone);
    const finished = done
      ? Promise.resolve(true)
      : client
          .next('server.idle', (e) => e.data.reason === 'all-codons-completed', RUN_TIMEOUT_MS)
          .then(() => true)
          .catch(() => false);
    void finished.then((ok) => {
      done = ok;
    });

    let sent = 0;
    // Short: each intruder once, while the run goes. Long: random ones until the run is over.
    for (let i = 0; ; i++) {
      const intruder = ctx.short
        ? INTRUDERS[i]
        : !done && Date.now() < ctx.deadline
          ? pick(ctx.random, INTRUDERS)
          : undefined;
      if (!intruder || life.exit) break;
      const answer = await send(proxyUrl, intruder);
      sent += 1;
      const how = 'failed' in answer ? `failed: ${answer.failed}` : `${answer.status}`;
      ctx.tally.fault(`${intruder.name}: ${how}`);
      if ('failed' in answer) {
        ctx.tally.fail(`proxy-access: ${intruder.name}: the request ${answer.failed}`);
      } else if (answer.status !== intruder.status || !answer.clean) {
        ctx.tally.fail(
          `proxy-access: ${intruder.name}: answered ${answer.status}${answer.clean ? '' : ' without an Anthropic-style body'}, expected ${intruder.status}`,
        );
      }
    }

    if (!(await finished)) {
      ctx.tally.fail(
        `proxy-access: the demo did not complete within ${RUN_TIMEOUT_MS / 1000} s through the proxy`,
      );
    }
    const failed = client.received.filter((e) => e.type === 'codon.completed' && !e.data.success);
    if (failed.length > 0)
      ctx.tally.fail(`proxy-access: ${failed.length} codon(s) failed behind the guarded proxy`);
    const counted = await fetch(`${proxyUrl}/health`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
      .then((r) => r.headers.get(REFUSED_HEADER))
      .catch((e: Error) => e.message);
    // Every intruder counted, and nothing else: the agents and sentinels were never refused.
    if (counted !== String(sent))
      ctx.tally.fail(`proxy-access: ${sent} requests refused, the health answer counts ${counted}`);
    ctx.tally.rss(life.memory()?.hwmKiB);

    if (life.exit) {
      ctx.tally.crashes += 1;
      ctx.tally.fail(
        `proxy-access: the server went down (${exitText(life.exit)}):\n${indent(downVerdict(life.exit, client.received, life.stderr()).join('\n'))}`,
      );
      return;
    }
    await client.close();
    life.kill('SIGTERM');
    const exit = await bounded(life.exited, 20_000);
    if (exit?.code !== 0)
      ctx.tally.fail(
        `proxy-access: the server did not stop cleanly on SIGTERM (${exit ? exitText(exit) : 'still up'})`,
      );
    const log = readFileSync(join(exec, '.ribosome/logs/server.log'), 'utf8');
    if (sent > 0 && !log.includes(`; ${sent} refused so far`))
      ctx.tally.fail(`proxy-access: the server log has no "${sent} refused so far" line`);
    if (log.includes(TOKEN)) ctx.tally.fail('proxy-access: the access token is in the server log');
    // LoggingMiddleware logs every request forwarded: none of the intruders' may be among them.
    const forwarded = log.split('\n').filter((line) => line.includes('[LOGGING-MIDDLEWARE] request'));
    if (forwarded.some((line) => line.includes('tenant-b')))
      ctx.tally.fail('proxy-access: a traversal reached the provider');
    if (forwarded.length === 0)
      ctx.tally.fail("proxy-access: the agents' requests did not go through the proxy");
  },
};
