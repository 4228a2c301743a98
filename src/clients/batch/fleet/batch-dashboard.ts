import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { accessToken, generateToken, startWebServer } from '../../../host/web-server/index.ts';
import { askTicket } from '../../../host/web-server/ticket-source.ts';
import { isLoopbackHost } from '../../../platform/http/loopback.ts';
import { batchLayout } from '../layout.ts';
import { ticketTarget } from './fleet.ts';
import { fleetSource } from './fleet-source.ts';

export type BatchDashboardOptions = {
  /** The batch directory (it holds batch.json or summary.json). */
  dir: string;
  /** Address to bind, as `ribosome web --host` (127.0.0.1 for this machine only). */
  host: string;
  /** HTTP port; 0 = a dynamic one. */
  port: number;
  /**
   * The access token given (`--token`, or RIBOSOME_TOKEN): the jobs' servers need it, and so does
   * the page. Beyond loopback without one, a key is generated for the page alone.
   */
  token?: string | undefined;
  /** The page may only watch: its tickets are readonly, and with a token its key is its own. */
  readonly: boolean;
  /** The dashboard's files (default the package's dist-web/). */
  root?: string | undefined;
};

export type BatchDashboard = {
  /** The address to open: `http://HOST:PORT/`, with `?token=KEY` when the page needs a key. */
  url: string;
  stop(): Promise<void>;
};

/** Why a batch dashboard did not start: a code to switch on, a message to show as is. */
export class BatchDashboardError extends Error {
  readonly code: 'not_a_batch' | 'bad_token' | 'cannot_listen';
  constructor(code: BatchDashboardError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * The web dashboard of a batch directory (`ribosome web --batch DIR`, `ribosome batch --web`): its
 * `/config.json` lists the batch's jobs from summary.json and their runtime locks, read again at
 * each request, and `/ticket?server=N&id=ID` asks job N's server of the moment for a ticket (409
 * when none runs, saying why and what opens its record). Prints nothing; throws BatchDashboardError.
 */
export async function startBatchDashboard(options: BatchDashboardOptions): Promise<BatchDashboard> {
  const dir = resolve(options.dir);
  const problem = batchDirProblem(dir);
  if (problem !== undefined) throw new BatchDashboardError('not_a_batch', problem);
  const access = accessToken({ flag: options.token, env: undefined, loopback: isLoopbackHost(options.host) });
  if (!access.ok)
    throw new BatchDashboardError('bad_token', access.message.replace(/^--token /, 'the token '));
  // As `ribosome web`: the servers' token is the one given; a readonly page gets a key of its own.
  const serverToken = access.generated ? undefined : access.token;
  const pageKey = options.readonly && access.token !== undefined ? generateToken() : access.token;
  const mode = options.readonly ? 'readonly' : 'readandwrite';
  const fleet = fleetSource(dir);
  try {
    const web = await startWebServer({
      host: options.host,
      port: options.port,
      ...(options.root === undefined ? {} : { root: options.root }),
      readonly: options.readonly,
      token: pageKey,
      servers: () => [],
      batch: () => fleet.read(),
      ticket: async (index, origin, id) => {
        const target = ticketTarget(await fleet.read(), index, id);
        if (!target.ok) return target;
        return askTicket(target.url, { origin, mode, token: serverToken });
      },
    });
    const query = pageKey === undefined ? '' : `?token=${encodeURIComponent(pageKey)}`;
    return { url: `${web.url}${query}`, stop: web.stop };
  } catch (error) {
    throw new BatchDashboardError(
      'cannot_listen',
      `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
    );
  }
}

/** Why `dir` is not a batch directory (it has neither batch.json nor summary.json), or undefined. */
export function batchDirProblem(dir: string): string | undefined {
  if (!existsSync(dir)) return `${dir} does not exist: give the directory \`ribosome batch\` made`;
  if (!statSync(dir).isDirectory()) return `${dir} is not a directory: give a batch directory`;
  const layout = batchLayout(dir);
  if (existsSync(layout.batchRecord) || existsSync(layout.summary)) return undefined;
  return `${dir} is not a batch directory (it has no batch.json nor summary.json): give the directory \`ribosome batch\` made (by default ./ribosome-batches/<name>)`;
}
