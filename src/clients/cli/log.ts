import type { Command } from 'commander';
import { RibosomeClient } from '../../core/client/index.ts';
import { parseServerEvent, type ServerEvent } from '../../core/protocol/index.ts';
import {
  ExecutionReadError,
  findExecution,
  journalEvents,
  liveServerUrl,
  openExecutionDb,
} from '../runs/index.ts';
import { consoleView } from './console-view.ts';

type LogFlags = { execution?: string; url?: string; follow?: boolean; token?: string };

export function registerLog(program: Command): void {
  program
    .command('log')
    .description("Print an execution's events in the console view; --follow a running server's")
    .option('--execution <dir>', 'execution directory (default: the only one under ./ribosome-runs)')
    .option('--url <ws-url>', 'a running server to read from (instead of an execution directory)')
    .option('--follow', 'then print new events as they come, until the server stops (or Ctrl-C)')
    .option(
      '--token <token>',
      "the server's access token, to follow or read a server that has one (env RIBOSOME_TOKEN)",
    )
    .action(async (flags: LogFlags) => {
      process.exitCode = await logCommand(flags);
    });
}

const describe = consoleView();
const print = (e: ServerEvent) => {
  const line = describe(e);
  if (line !== undefined) process.stdout.write(`${line}\n`);
};

export async function logCommand(flags: LogFlags): Promise<number> {
  // The reader went away (`ribosome log | head`): nothing more to print.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  if (flags.url !== undefined && flags.execution !== undefined) {
    return fail('log: give --execution DIR or --url URL, not both', 2);
  }
  const token = flags.token ?? (process.env.RIBOSOME_TOKEN || undefined);
  if (flags.url !== undefined) {
    if (!/^wss?:\/\//.test(flags.url)) return fail(`log: --url must be a ws:// URL, got "${flags.url}"`, 2);
    return fromServer(flags.url, flags.follow === true, token);
  }
  const found = findExecution(flags.execution, process.cwd());
  if (!found.ok) return fail(`log: ${found.message}`, 2);
  // Following needs the server; a journal read needs only the database (running or not).
  const url = flags.follow ? liveServerUrl(found.dir) : undefined;
  if (url !== undefined) {
    const code = await fromServer(url, true, token, true);
    if (code !== NOT_REACHED) return code;
  }
  return fromJournal(found.dir, flags.follow === true);
}

/** The server went away between finding it and connecting: read the journal instead. */
const NOT_REACHED = -1;

function fromJournal(dir: string, follow: boolean): number {
  try {
    const db = openExecutionDb(dir);
    try {
      for (const json of journalEvents(db)) {
        const parsed = parseServerEvent(JSON.parse(json));
        if (parsed.ok) print(parsed.event);
      }
    } finally {
      db.close();
    }
  } catch (error) {
    return fail(`log: ${(error as Error).message}`, error instanceof ExecutionReadError ? 2 : 1);
  }
  if (follow) process.stderr.write(`ribosome: no server is running on ${dir}; that is its whole journal\n`);
  return 0;
}

/**
 * A readonly client: the whole journal (history.sync), then, following, each new event until the
 * server closes the connection (it stopped) or Ctrl-C. Live events that the history also holds are
 * printed once.
 */
async function fromServer(
  url: string,
  follow: boolean,
  token: string | undefined,
  fallBack = false,
): Promise<number> {
  let client: RibosomeClient;
  try {
    client = await RibosomeClient.connect(url, {
      mode: 'readonly',
      sendPreviousEvents: false,
      keepEvents: 0,
      ...(token ? { token } : {}),
    });
  } catch (error) {
    const message = (error as Error).message;
    // A server that refused us is running: never say it is not (its token is what is missing).
    if (/HTTP 40[13]\b/.test(message))
      return fail(
        `log: the server at ${url} refused the connection (${message}); give its access token with --token or RIBOSOME_TOKEN`,
        1,
      );
    if (fallBack) return NOT_REACHED;
    return fail(`log: cannot connect to ${url}: ${message}`, 1);
  }
  const live: ServerEvent[] = [];
  let history: Set<string> | undefined;
  const offLive = client.onEvent((e) => {
    if (e.type === 'history.batch') return;
    if (history === undefined) live.push(e);
    else if (!history.has(e.id)) print(e);
  });
  const closed = new Promise<void>((resolve) => {
    client.onStateChange((state) => {
      if (state === 'closed') resolve();
    });
  });
  try {
    const stopped = closed.then(() => {
      throw new Error('the server stopped');
    });
    stopped.catch(() => {}); // Only the race below listens; a stop after it is no error.
    const events = await Promise.race([client.syncHistory(), stopped]);
    for (const e of events) print(e);
    history = new Set(events.map((e) => e.id));
    for (const e of live.splice(0)) if (!history.has(e.id)) print(e);
  } catch (error) {
    offLive();
    await client.close();
    if (fallBack) return NOT_REACHED;
    return fail(`log: reading the journal from ${url}: ${(error as Error).message}`, 1);
  }
  if (!follow) {
    offLive();
    await client.close();
    return 0;
  }
  const interrupted = () => void client.close();
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  await closed;
  offLive();
  return 0;
}

function fail(message: string, code: number): number {
  process.stderr.write(`ribosome: ${message}\n`);
  return code;
}
