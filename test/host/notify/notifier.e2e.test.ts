import { afterEach, describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../../src/core/protocol/index.ts';
import { EventBus } from '../../../src/execution/journal/event-bus.ts';
import { MemoryJournal } from '../../../src/execution/journal/memory-journal.ts';
import { backoffBefore, retriableStatus } from '../../../src/host/notify/delivery.ts';
import { type Notifier, startNotifier } from '../../../src/host/notify/notifier.ts';
import { displayUrl, mergeTargets } from '../../../src/host/notify/target.ts';
import type { NotifyEvent, NotifyTarget } from '../../../src/plan/unattended-schema.ts';
import { captureLogger } from '../../llm/proxy/helpers/logs.ts';
import { downUrl, startReceiver } from './receiver.ts';

const ALL: NotifyEvent[] = ['run-completed', 'run-failed', 'codon-failed', 'budget-exceeded', 'stalled'];
const SECRET = 's3cr3t-T0KEN';
const FAST = { backoffMs: 10, maxBackoffMs: 40, timeoutMs: 2_000 };

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function setup(targets: NotifyTarget[], delivery = FAST) {
  const bus = new EventBus({ journal: new MemoryJournal(), runId: 'run-1' });
  const { logger, lines } = captureLogger();
  const events: ServerEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const notifier: Notifier = startNotifier({
    bus,
    logger,
    targets,
    context: { plan: 'demo', serverVersion: '1.2.3', executionPath: '/exec' },
    delivery,
  });
  cleanup.push(() => notifier.stop(1_000));
  const error = (code: string, message: string) =>
    bus.publish('error', { message, codon: 'one', fatal: false, severity: 'codon', code });
  const warnings = () =>
    events.flatMap((e) => (e.type === 'error' && e.data.code === 'NOTIFY_FAILED' ? [e.data] : []));
  return { bus, notifier, lines, events, error, warnings };
}

async function receiver(options: Parameters<typeof startReceiver>[0] = {}) {
  const r = await startReceiver(options);
  cleanup.push(r.close);
  return r;
}

describe('the notifier', () => {
  it('POSTs budget-exceeded and stalled from the error events, as JSON, with user-info as Basic auth', async () => {
    const r = await receiver();
    const { error } = setup([{ webhook: `http://hook:pw@127.0.0.1:${r.port}/in?token=${SECRET}`, on: ALL }]);
    await error('BUDGET_EXCEEDED', 'codon one: budget maxCostUsd 1 exceeded (spent 1.2)');
    await error('CODON_STALLED', 'codon one stalled: no line for 60000 ms');
    const got = await r.waitFor(2);
    expect(got.map((g) => [g.body.event, g.body.codonId, g.body.reason])).toEqual([
      ['budget-exceeded', 'one', 'codon one: budget maxCostUsd 1 exceeded (spent 1.2)'],
      ['stalled', 'one', 'codon one stalled: no line for 60000 ms'],
    ]);
    expect(got[0]?.body).toMatchObject({
      runId: 'run-1',
      plan: 'demo',
      serverVersion: '1.2.3',
      executionPath: '/exec',
      runCostUsd: 0,
    });
    expect(got[0]?.url).toBe(`/in?token=${SECRET}`);
    expect(got[0]?.headers['content-type']).toBe('application/json');
    expect(got[0]?.headers.authorization).toBe(`Basic ${Buffer.from('hook:pw').toString('base64')}`);
  });

  it('sends a target only the kinds it asked for', async () => {
    const stalls = await receiver();
    const budgets = await receiver();
    const { error, notifier } = setup([
      { webhook: stalls.url, on: ['stalled'] },
      { webhook: budgets.url, on: ['budget-exceeded'] },
    ]);
    await error('CODON_STALLED', 'stalled');
    await error('BUDGET_EXCEEDED', 'over');
    await notifier.stop(2_000);
    expect(stalls.received.map((g) => g.body.event)).toEqual(['stalled']);
    expect(budgets.received.map((g) => g.body.event)).toEqual(['budget-exceeded']);
  });

  it('retries a receiver that answers 500, then 200: delivered once, no warning', async () => {
    const r = await receiver({ statuses: [500, 200] });
    const { error, notifier, warnings, lines } = setup([{ webhook: r.url, on: ALL }]);
    await error('CODON_STALLED', 'stalled');
    await notifier.stop(2_000);
    expect(r.received.map((g) => g.body.event)).toEqual(['stalled', 'stalled']);
    expect(warnings()).toEqual([]);
    expect(lines.find((l) => l.msg === 'notification delivered')).toMatchObject({ attempts: 2 });
  });

  it('a receiver that is down: bounded attempts, a NOTIFY_FAILED warning, and the secret in no log line or event', async () => {
    const url = await downUrl();
    const webhook = `${url.replace('http://', `http://user:${SECRET}@`)}/hooks/x?token=${SECRET}&a=1`;
    const { error, notifier, warnings, lines, events } = setup([{ webhook, on: ALL }]);
    await error('BUDGET_EXCEEDED', 'over');
    await notifier.stop(2_000);
    const [warning] = warnings();
    expect(warning).toMatchObject({
      severity: 'warning',
      fatal: false,
      context: 'budget-exceeded',
      codon: 'one',
    });
    expect(warning?.message).toBe(
      `notification budget-exceeded to ${url}/hooks/x not delivered after 4 attempts: request failed (ECONNREFUSED)`,
    );
    expect(lines.find((l) => l.msg === 'notification not delivered')).toMatchObject({
      target: `${url}/hooks/x`,
      attempts: 4,
    });
    const everything = JSON.stringify(lines) + JSON.stringify(events);
    expect(everything).not.toContain(SECRET);
  });

  it('a 4xx is not retried; at stop, what a silent receiver holds gets the grace period, then is dropped and reported', async () => {
    const refusing = await receiver({ statuses: [404] });
    const silent = await receiver({ hang: true });
    const { error, notifier, warnings } = setup(
      [
        { webhook: refusing.url, on: ALL },
        { webhook: silent.url, on: ALL },
      ],
      { ...FAST, timeoutMs: 60_000 },
    );
    await error('CODON_STALLED', 'stalled');
    await silent.waitFor(1);
    await notifier.stop(100);
    expect(refusing.received).toHaveLength(1);
    expect(warnings().map((w) => w.message)).toEqual([
      `notification stalled to ${refusing.url}/ not delivered after 1 attempt: the receiver answered HTTP 404`,
      `notification stalled to ${silent.url}/ not delivered after 1 attempt: the server stopped before it got an answer`,
    ]);
  });

  it('a receiver that never answers: each attempt times out, then a warning', async () => {
    const silent = await receiver({ hang: true });
    const { error, notifier, warnings } = setup([{ webhook: silent.url, on: ALL }], {
      ...FAST,
      timeoutMs: 100,
    });
    await error('CODON_STALLED', 'stalled');
    await silent.waitFor(4);
    await notifier.stop(2_000);
    expect(warnings().map((w) => w.message)).toEqual([
      `notification stalled to ${silent.url}/ not delivered after 4 attempts: no answer within 100 ms`,
    ]);
  });

  it('never makes a publisher wait: the bus hands the event over while the receiver has not answered', async () => {
    const silent = await receiver({ hang: true });
    const { error, notifier } = setup([{ webhook: silent.url, on: ALL }], { ...FAST, timeoutMs: 60_000 });
    await error('CODON_STALLED', 'one');
    await error('CODON_STALLED', 'two');
    await silent.waitFor(1);
    await notifier.stop(0);
  });
});

describe('targets', () => {
  it('show origin and path only', () => {
    expect(displayUrl(`https://u:${SECRET}@hooks.example.com/a/b?token=${SECRET}#k=${SECRET}`)).toBe(
      'https://hooks.example.com/a/b',
    );
    expect(displayUrl(`https://h.example.com/x;api_key=${SECRET}`)).toBe('https://h.example.com/[redacted]');
  });

  it('hide path segments that look like keys (hook services put the secret in the path)', () => {
    expect(displayUrl('https://hooks.slack.com/services/T0123ABCD/B0456EFGH/x9YzAbCdEfGhIjKlMnOpQrSt')).toBe(
      'https://hooks.slack.com/services/[redacted]/[redacted]/[redacted]',
    );
    expect(displayUrl('https://discord.com/api/webhooks/123456789012345678/tok')).toBe(
      'https://discord.com/api/webhooks/[redacted]/tok',
    );
    expect(displayUrl('http://127.0.0.1:8099/ribosome/notify')).toBe('http://127.0.0.1:8099/ribosome/notify');
  });

  it('the plan and the config file both apply; the same URL twice is one target with both kinds', () => {
    expect(
      mergeTargets(
        [{ webhook: 'https://a.example/x', on: ['run-completed'] }],
        [
          { webhook: 'https://a.example/x', on: ['stalled', 'run-completed'] },
          { webhook: 'https://b.example/y', on: ['run-failed'] },
        ],
      ),
    ).toEqual([
      { webhook: 'https://a.example/x', on: ['run-completed', 'stalled'] },
      { webhook: 'https://b.example/y', on: ['run-failed'] },
    ]);
  });

  it('retries what a busy or broken receiver answers, with a doubling, capped wait', () => {
    expect([200, 400, 404, 408, 429, 500, 503].map(retriableStatus)).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
    expect([1, 2, 3, 4, 5].map((a) => backoffBefore(a, { backoffMs: 500, maxBackoffMs: 4_000 }))).toEqual([
      500, 1_000, 2_000, 4_000, 4_000,
    ]);
  });
});
