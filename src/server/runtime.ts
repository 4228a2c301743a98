import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import pino, { type Logger } from 'pino';
import type { ServerSettings } from '../config/server-config.ts';
import type { Engine } from '../engine/engine.ts';
import { openDatabase } from '../journal/database.ts';
import { EventBus } from '../journal/event-bus.ts';
import { SqliteJournal } from '../journal/sqlite-journal.ts';
import { newRunId } from '../state/run-id.ts';
import { SERVER_VERSION } from '../version.ts';
import { ControlServer, type ServerInfo } from './control-server.ts';
import { acquireRuntimeLock, type LockInfo } from './runtime-lock.ts';

/** Where an execution keeps its things (DESIGN.md "Execution directory"). */
export function executionLayout(executionDir: string, agentRootName = 'agentRoot') {
  const internal = join(executionDir, '.ribosome');
  return {
    executionDir,
    agentRoot: join(executionDir, agentRootName),
    rigArchive: join(executionDir, 'rigArchive'),
    internal,
    database: join(internal, 'ribosome.db'),
    lockFile: join(internal, 'runtime.lock'),
    logFile: join(internal, 'logs', 'server.log'),
    agentState: join(internal, 'agents'),
  };
}
export type ExecutionLayout = ReturnType<typeof executionLayout>;

export type RuntimeDeps = {
  layout: ExecutionLayout;
  db: DatabaseSync;
  bus: EventBus;
  journal: SqliteJournal;
  logger: Logger;
  settings: ServerSettings;
  dataDir: string;
};

export type RuntimeOptions = {
  executionDir: string;
  /** Name of the agent's working directory inside the execution directory. */
  agentRootName?: string;
  dataDir: string;
  settings: ServerSettings;
  createEngine: (deps: RuntimeDeps) => Engine | Promise<Engine>;
  /** Extra server.ready fields (the plan, the proxy), read at each handshake. */
  readyExtras?: ServerInfo['extras'];
  /** Started after the server listens, stopped before it closes (the proxy). */
  companions?: Array<(deps: RuntimeDeps & { port: number }) => Promise<{ stop(): Promise<void> }>>;
};

export class LockHeldError extends Error {
  readonly code = 'EXECUTION_LOCKED';
  readonly holder: LockInfo;
  constructor(lockFile: string, holder: LockInfo) {
    super(
      `another Ribosome server (pid ${holder.pid}${holder.port ? `, ws://${holder.host}:${holder.port}` : ''}, started ${holder.startTime}) is running on this execution directory. Stop it first, or use another --execution directory. Lock: ${lockFile}`,
    );
    this.holder = holder;
  }
}

export type Runtime = {
  url: string;
  bus: EventBus;
  port: number;
  layout: ExecutionLayout;
  logger: Logger;
  /** Resolves with the exit code once the runtime has stopped. */
  stopped: Promise<number>;
  stop(reason: string): Promise<void>;
};

/**
 * Assembles one server on an execution directory: lock, logs, journal, bus, engine, WebSocket
 * server and companions; and takes them down in the reverse order on stop.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const layout = executionLayout(options.executionDir, options.agentRootName);
  for (const dir of [layout.agentRoot, layout.rigArchive, options.dataDir, join(layout.internal, 'logs')]) {
    mkdirSync(dir, { recursive: true });
  }
  const lock = acquireRuntimeLock(layout.lockFile);
  if (!lock.ok) throw new LockHeldError(layout.lockFile, lock.holder);

  const destination = pino.destination({ dest: layout.logFile, sync: false, mkdir: true });
  await once(destination, 'ready');
  const logger = pino({ level: options.settings.logLevel, base: { pid: process.pid } }, destination);
  if (lock.tookOverFrom) logger.warn({ stale: lock.tookOverFrom }, 'took over a stale runtime lock');

  const { settings } = options;
  const db = openDatabase(layout.database, settings.journalSync);
  const journal = new SqliteJournal(db);
  const bus = new EventBus({ journal, runId: newRunId(), logger });
  const deps: RuntimeDeps = { layout, db, bus, journal, logger, settings, dataDir: options.dataDir };
  let engine: Engine;
  try {
    engine = await options.createEngine(deps);
  } catch (error) {
    journal.close();
    lock.lock.release();
    destination.flushSync();
    throw error;
  }

  let resolveStopped: (code: number) => void = () => {};
  const stopped = new Promise<number>((resolve) => {
    resolveStopped = resolve;
  });
  let stopping: Promise<void> | undefined;
  const companions: Array<{ stop(): Promise<void> }> = [];

  const server = new ControlServer({
    host: settings.host,
    port: settings.port,
    allowOrigins: settings.allowOrigins,
    limits: {
      maxFrameBytes: settings.limits.maxFrameBytes,
      hardMaxFrameBytes: settings.limits.hardMaxFrameBytes,
      maxBufferedBytes: settings.limits.maxBufferedBytes,
      maxClients: settings.limits.maxClients,
      handshakeTimeoutMs: settings.limits.handshakeTimeoutMs,
      heartbeatMs: settings.limits.heartbeatMs,
      closeGraceMs: settings.limits.closeGraceMs,
      historyBatch: {
        maxEvents: settings.limits.historyBatchEvents,
        maxBytes: settings.limits.historyBatchBytes,
      },
      handshakeHistory: {
        maxEvents: settings.limits.handshakeHistoryEvents,
        maxBytes: settings.limits.handshakeHistoryBytes,
      },
    },
    info: {
      serverVersion: SERVER_VERSION,
      executionPath: layout.executionDir,
      agentRootPath: layout.agentRoot,
      dataPath: options.dataDir,
      ...(options.readyExtras ? { extras: options.readyExtras } : {}),
    },
    bus,
    journal,
    engine,
    logger,
    onShutdownRequested: (reason) => {
      void stop(`client request: ${reason}`);
    },
  });

  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ reason }, 'stopping');
      let code = 0;
      try {
        await engine.stop(reason);
        for (const companion of companions.reverse()) await companion.stop();
        bus.flush();
        await server.close();
      } catch (error) {
        logger.error({ err: error }, 'error while stopping');
        code = 1;
      } finally {
        bus.flush();
        journal.close();
        lock.lock.release();
        logger.info({ code }, 'stopped');
        destination.flushSync();
        resolveStopped(code);
      }
    })();
    return stopping;
  };

  try {
    const { url, port } = await server.listen();
    lock.lock.setAddress(settings.host, port);
    for (const start of options.companions ?? []) companions.push(await start({ ...deps, port }));
    await engine.start();
    return { url, bus, port, layout, logger, stopped, stop };
  } catch (error) {
    await stop(`startup failed: ${(error as Error).message}`);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(
        `port ${settings.port} on ${settings.host} is already in use; choose another --port, or leave it out for a dynamic port`,
      );
    }
    throw error;
  }
}
