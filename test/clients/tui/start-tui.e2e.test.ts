import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTui } from '../../../src/clients/tui/load.ts';
import { RibosomeClient } from '../../../src/core/client/index.ts';
import { startInProcess } from '../../helpers/in-process.ts';

// As the CLI does: Ink renders every frame even when CI is set (as it is when CI runs these tests).
const { startTui, TUI_EXIT } = await loadTui();
// Loaded after Ink (it imports it too), so it finds Ink already loaded the way the CLI loads it.
const { renderApp } = await import('./helpers/render.ts');

/** A terminal made of streams: what Ink needs from stdout and stdin. */
function fakeTerminal(columns = 100, rows = 30) {
  let output = '';
  const stdout = Object.assign(new PassThrough(), { columns, rows, isTTY: false });
  stdout.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: () => stdin,
    ref: () => stdin,
    unref: () => stdin,
  });
  const stderr = Object.assign(new PassThrough(), { columns, rows });
  return {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    output: () => output,
  };
}

async function until(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const servers: Array<{ cleanup(): Promise<void> }> = [];
const clients: RibosomeClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const s of servers.splice(0)) await s.cleanup();
});

describe('startTui', () => {
  it('attaches to a server, syncs its history, and resolves 0 when the user quits', async () => {
    const server = await startInProcess();
    servers.push(server);
    await server.bus.publish('info', { message: 'published before the UI attached' });
    const term = fakeTerminal();
    const exit = startTui({
      url: server.url,
      stdout: term.stdout,
      stdin: term.stdin,
      stderr: term.stderr,
      env: { NO_COLOR: '1' },
    });
    await until('the history', () => term.output().includes('published before the UI attached'));
    await server.bus.publish('info', { message: 'published live' });
    await until('a live event', () => term.output().includes('published live'));
    term.stdin.write('q');
    expect(await exit).toBe(TUI_EXIT.ok);
  });

  it('says why and resolves 1 when there is no server', async () => {
    const term = fakeTerminal();
    let errors = '';
    term.stderr.on('data', (d: Buffer) => {
      errors += d.toString();
    });
    const code = await startTui({
      url: 'ws://127.0.0.1:1',
      stdout: term.stdout,
      stdin: term.stdin,
      stderr: term.stderr,
      connectTimeoutMs: 2_000,
    });
    expect(code).toBe(TUI_EXIT.cannotConnect);
    expect(errors).toMatch(/could not attach to ws:\/\/127\.0\.0\.1:1: .*Is `ribosome run` serving there\?/);
  });
});

describe('the UI against a real server in process', () => {
  it('shows events the server publishes, sends commands, and shows their refusal', async () => {
    const server = await startInProcess();
    servers.push(server);
    const client = await RibosomeClient.connect(server.url, { mode: 'readandwrite', reconnect: true });
    clients.push(client);
    const app = renderApp(client, { width: 140 });
    await app.waitFor('plan "test" loaded with 0 codons');
    await server.bus.publish('codon.started', {
      codonId: 'one',
      codonName: 'One',
      sessionId: 's',
      startTime: new Date().toISOString(),
    });
    await server.bus.publish('sentinel.output', {
      sentinelId: 'watch',
      codonId: 'one',
      triggerNumber: 1,
      outputType: 'text',
      content: 'looks fine',
      cost: 0,
      tokens: { input: 1, output: 1 },
      eventCount: 1,
    });
    await app.waitFor('▶ one One');
    await app.waitFor('#1');
    await app.press('n');
    await app.waitFor('NO_NEXT_CODON');
  });

  it('shows a lost server and reconnects to its successor on the same port', async () => {
    const first = await startInProcess();
    const client = await RibosomeClient.connect(first.url, {
      mode: 'readandwrite',
      reconnect: { minDelayMs: 50, maxDelayMs: 200 },
    });
    clients.push(client);
    const app = renderApp(client, { width: 140 });
    await app.waitFor('plan "test" loaded');
    const port = Number(new URL(first.url).port);
    await first.stop('test: server goes away');
    await app.waitFor('CONNECTION LOST');
    const second = await startInProcess({ port }, first.dir);
    servers.push(second, first); // the first one owns the directory: it goes last
    await second.bus.publish('info', { message: 'the second server speaks' });
    const frame = await app.waitFor('the second server speaks', 10_000);
    expect(frame).not.toContain('CONNECTION LOST');
    await app.waitFor('reconnected; history synced again');
  });
});
