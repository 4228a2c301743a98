import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from 'pino';
import { SERVER_VERSION } from '../../core/version.ts';
import type { Engine } from '../../engine/engine.ts';
import type { EngineDeps } from '../../engine/ports.ts';
import { checkIntegrity, IntegrityError } from '../../execution/integrity/startup-check.ts';
import { openDatabase } from '../../execution/journal/database.ts';
import { EventBus } from '../../execution/journal/event-bus.ts';
import { EventRedaction } from '../../execution/journal/event-redaction.ts';
import { SqliteJournal } from '../../execution/journal/sqlite-journal.ts';
import { type ExecutionLayout, executionLayout } from '../../execution/layout/layout.ts';
import { acquireRuntimeLock, type LockInfo } from '../../execution/layout/runtime-lock.ts';
import { newRunId } from '../../execution/state/run-id.ts';
import type { ServerSettings } from '../../plan/config/server-config.ts';
import { PROVIDER_KEY_VARS, TOKEN_VAR } from '../../platform/credentials/credentials.ts';
import { SecretRedactor } from '../../platform/credentials/secret-redactor.ts';
import {
  asStorageFault,
  faultAdvice,
  type StorageFault,
  StorageGuard,
} from '../../platform/storage/guard.ts';
import { SQLITE_HEADER, WatchedPath } from '../../platform/storage/identity.ts';
import { diagnose } from '../../platform/storage/probe.ts';
import { ControlServer } from './control-server.ts';
import { listenWithRetry } from './listen-retry.ts';
import { openServerLog, type ServerLog } from './server-log.ts';
import type { ControlServerOptions, ReadyExtras } from './server-options.ts';

export type RuntimeOptions<C = undefined> = {
  executionDir: string;
  /** Name of the agent's working directory inside the execution directory. */
  agentRootName?: string;
  dataDir: string;
  settings: ServerSettings;
  /**
   * Made before the server listens, so before the companions start: `companions()` is what they
   * returned, undefined until they have started (and again while a listening attempt is undone).
   */
  createEngine: (deps: EngineDeps, companions: () => C | undefined) => Engine | Promise<Engine>;
  /** Extra server.ready fields (the plan, the proxy), read at each handshake. */
  readyExtras?: (companions: C | undefined) => ReadyExtras;
  /**
   * Starts what runs beside the server (the proxy, the dashboard) once it listens, each through
   * `start`, which stops them before the server closes (the last started first). What it returns
   * (their URLs) is `Runtime.companions`. Started again on each listening attempt.
   */
  companions?: StartCompanions<C>;
  /** The access token upgrades must carry (ControlServerOptions.token). */
  token?: string | undefined;
  /**
   * [the provider key variables of the environment] The secret values redacted from every event
   * before it is journaled (docs/operations.md#secrets-in-the-journal); the access token is added
   * here, and a caller may add more (the plan's key variables, a companion's credential) later.
   */
  secrets?: SecretRedactor;
  /**
   * [0 each time: the OS chooses] With a dynamic port (settings.port 0), the port of attempt n: a
   * companion's port taken (the proxy's, main + 1) makes the server listen again (listen-retry.ts).
   * Tests inject a port whose + 1 they hold.
   */
  dynamicPort?: (attempt: number) => number;
};

export type CompanionDeps = EngineDeps & {
  port: number;
  /** The WebSocket URL clients connect to. */
  url: string;
  /** A ticket for a dashboard page of `origin` (ControlServer.mintTicket). */
  mintTicket: ControlServer['mintTicket'];
};

/** Something running beside the server, stopped before it closes. */
export type Stoppable = { stop(): Promise<void> };

/** One companion; undefined when it has nothing to run (the proxy, disabled). */
export type Companion<T extends Stoppable | undefined> = (deps: CompanionDeps) => Promise<T>;

/** Starts one companion and keeps it, to be stopped with the server; resolves to what it returned. */
export type StartCompanion = <T extends Stoppable | undefined>(companion: Companion<T>) => Promise<T>;

/** Starts the companions in the order they depend on each other; returns what the run needs of them. */
export type StartCompanions<C> = (start: StartCompanion) => Promise<C>;

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

export type Runtime<C = undefined> = {
  url: string;
  bus: EventBus;
  port: number;
  layout: ExecutionLayout;
  logger: Logger;
  engine: Engine;
  /** What the companions returned (undefined without companions). */
  companions: C | undefined;
  /** Resolves with the exit code once the runtime has stopped (RUNTIME_EXIT). */
  stopped: Promise<number>;
  stop(reason: string): Promise<void>;
  /** The storage fault that stopped the server, once one has. */
  readonly fault: StorageFault | undefined;
  /** Why the server stopped (the first reason given to stop), once it is stopping. */
  readonly stopReason: string | undefined;
};

/** How often the database and checkpoint store are checked for deletion or replacement between writes. */
const STORAGE_CHECK_MS = 1_000;

/** How a runtime ends; the CLI's exit codes. */
export const RUNTIME_EXIT = {
  ok: 0,
  /** Something failed while stopping. */
  failure: 1,
  /** A journal or state write failed (disk full, read-only or failing disk): the server stopped. */
  storageFailed: 4,
} as const;

/**
 * Assembles one server on an execution directory: lock, logs, journal, bus, engine, WebSocket
 * server and companions; and takes them down in the reverse order on stop.
 *
 * A write to the journal or the state that fails is fatal (the server could no longer promise that
 * nothing is lost): every client gets an `error` (severity fatal, code STORAGE_FAILED) sent directly,
 * since it cannot be journaled; the running codon is stopped with its process tree; nothing more is
 * written; the lock and temp files go; `stopped` resolves with RUNTIME_EXIT.storageFailed.
 */
export async function startRuntime<C = undefined>(options: RuntimeOptions<C>): Promise<Runtime<C>> {
  const layout = executionLayout(options.executionDir, options.agentRootName);
  try {
    for (const dir of [layout.agentRoot, layout.rigArchive, options.dataDir, join(layout.internal, 'logs')]) {
      mkdirSync(dir, { recursive: true });
    }
  } catch (error) {
    throw asStorageFault('execution directory', layout.executionDir, error);
  }
  let log: ServerLog | undefined;
  const onHeartbeatError = (error: unknown) => {
    const why = diagnose(error, layout.lockFile)?.message ?? (error as Error).message;
    log?.logger.warn({ err: error }, `runtime lock heartbeat failed (${why}); retrying`);
    process.stderr.write(
      `ribosome: warning: the runtime lock heartbeat cannot be written (${why}); retrying\n`,
    );
  };
  let lock: ReturnType<typeof acquireRuntimeLock>;
  try {
    lock = acquireRuntimeLock(layout.lockFile, { onHeartbeatError });
  } catch (error) {
    throw asStorageFault('runtime lock', layout.lockFile, error);
  }
  if (!lock.ok) throw new LockHeldError(layout.lockFile, lock.holder);
  // Under the lock, before anything opens them: a damaged history is refused, never begun anew.
  const integrity = await checkIntegrity(layout.executionDir, layout.database).catch((error: Error) => ({
    ok: false as const,
    problem: `its history could not be checked: ${error.message}`,
  }));
  if (!integrity.ok) {
    lock.lock.release();
    throw new IntegrityError(layout.executionDir, integrity.problem);
  }

  const { settings, readyExtras } = options;
  const secrets = options.secrets ?? serverSecrets(process.env);
  secrets.add(TOKEN_VAR, options.token);
  const storage = new StorageGuard(layout.database);
  let db: DatabaseSync | undefined;
  let journal: SqliteJournal | undefined;
  let deps: EngineDeps;
  let engine: Engine;
  /** Set when the engine asked for the stop because the run gave up: the exit says failure. */
  let aborted = false;
  /** What the companions of the current listening attempt returned, once they have started. */
  let started: C | undefined;
  try {
    // A rig step's output and an agent's stderr are logged: without the server's secrets too.
    log = await openServerLog(layout.logFile, settings.logLevel, (lines) =>
      secrets.contains(lines) ? secrets.text(lines) : lines,
    );
    if (lock.tookOverFrom) log.logger.warn({ stale: lock.tookOverFrom }, 'took over a stale runtime lock');
    db = openDatabase(layout.database, settings.journalSync);
    const logger = log.logger;
    journal = new SqliteJournal(db, storage, {
      onCheckpointError: (error) =>
        logger.warn({ err: error }, 'WAL checkpoint failed (nothing is lost: the WAL keeps every commit)'),
    });
    // Deleted or replaced under the server, they would take writes nobody reads again: fatal.
    storage.watch(WatchedPath.open(layout.database, 'the journal database', SQLITE_HEADER));
    storage.watch(WatchedPath.open(`${layout.database}-wal`, "the journal database's WAL"));
    const redaction = new EventRedaction(secrets);
    const bus = new EventBus({ journal, runId: newRunId(), logger: log.logger, redaction });
    deps = {
      layout,
      db,
      bus,
      journal,
      logger: log.logger,
      settings,
      dataDir: options.dataDir,
      storage,
      requestStop: (reason) => {
        // The run gave up (onFailure then: abort): a failure, exit 1.
        aborted = true;
        void stop(reason);
      },
    };
    engine = await options.createEngine(deps, () => started);
  } catch (error) {
    storage.close();
    if (journal) journal.close();
    else if (db?.isOpen) db.close();
    lock.lock.release();
    await log?.close();
    throw asStorageFault('startup', layout.database, error);
  }
  const { bus, logger } = deps;

  let resolveStopped: (code: number) => void = () => {};
  const stopped = new Promise<number>((resolve) => {
    resolveStopped = resolve;
  });
  let stopping: Promise<void> | undefined;
  let stopReason: string | undefined;
  const companions: Stoppable[] = [];
  // A codon can wait long without a journal write (which checks too): the watches run on their own.
  const watching = setInterval(() => storage.check(), STORAGE_CHECK_MS);
  watching.unref();

  const serverOptions: ControlServerOptions = {
    host: settings.host,
    port: settings.port,
    allowOrigins: settings.allowOrigins,
    token: options.token,
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
      messageRate: { perSecond: settings.limits.messageRate, burst: settings.limits.messageBurst },
    },
    info: {
      serverVersion: SERVER_VERSION,
      executionPath: layout.executionDir,
      agentRootPath: layout.agentRoot,
      dataPath: options.dataDir,
      ...(readyExtras ? { extras: () => readyExtras(started) } : {}),
    },
    bus,
    journal,
    engine,
    logger,
    onShutdownRequested: (reason) => {
      void stop(`client request: ${reason}`);
    },
  };
  // A new server for each listening attempt (listen-retry.ts), on the port of that attempt.
  const newServer = (port: number) => new ControlServer({ ...serverOptions, port });
  let server: ControlServer | undefined;

  // Each step of the way down is tried even when one before it failed.
  const stop = (reason: string): Promise<void> => {
    stopReason ??= reason;
    stopping ??= (async () => {
      logger.info({ reason }, 'stopping');
      let failed = false;
      const attempt = async (what: string, step: () => unknown) => {
        try {
          await step();
        } catch (error) {
          // After a storage fault the engine cannot record its end: expected, not a second failure.
          if (storage.fault && error === storage.fault) return;
          logger.error({ err: error }, `error while stopping (${what})`);
          failed = true;
        }
      };
      await attempt('engine', () => engine.stop(reason));
      for (const companion of companions.reverse()) await attempt('companion', () => companion.stop());
      await attempt('flush', () => bus.flush());
      await attempt('server', () => server?.close(storage.fault ? 'storage failure' : undefined));
      await attempt('flush', () => bus.flush());
      clearInterval(watching);
      storage.close();
      journal?.close();
      lock.lock.release();
      const code = storage.fault
        ? RUNTIME_EXIT.storageFailed
        : failed || aborted
          ? RUNTIME_EXIT.failure
          : RUNTIME_EXIT.ok;
      logger.info({ code }, 'stopped');
      await log?.close();
      resolveStopped(code);
    })();
    return stopping;
  };

  storage.onFault((fault) => {
    logger.fatal(
      { err: fault.cause, what: fault.what, path: fault.path },
      `storage failure: ${fault.message}`,
    );
    bus.fail(fault);
    if (fault.kind === 'deleted' || fault.kind === 'replaced')
      markHistoryLost(layout.historyLost, fault.message);
    bus.announceUnjournaled('error', {
      message: `${fault.message}. The server stops: it can no longer record what happens. ${faultAdvice(fault)}`,
      fatal: true,
      severity: 'fatal',
      code: 'STORAGE_FAILED',
      context: fault.kind,
    });
    void stop(`storage failure: ${fault.message}`);
  });

  try {
    const { url, port } = await listenWithRetry({
      port: settings.port,
      dynamicPort: options.dynamicPort,
      attempt: async (port) => {
        const current = newServer(port);
        server = current;
        const listening = await current.listen();
        lock.lock.setAddress(settings.host, listening.port);
        const mintTicket: ControlServer['mintTicket'] = (origin, mode) => current.mintTicket(origin, mode);
        const start: StartCompanion = async (companion) => {
          const handle = await companion({ ...deps, ...listening, mintTicket });
          if (handle) companions.push(handle);
          return handle;
        };
        started = await options.companions?.(start);
        return listening;
      },
      undo: async (error, n) => {
        logger.warn(
          { err: error, attempt: n },
          'a port beside the dynamic main port is taken; listening again on another',
        );
        started = undefined;
        for (const companion of companions.splice(0).reverse()) await companion.stop();
        await server?.close();
        server = undefined;
      },
    });
    await engine.start();
    return {
      url,
      bus,
      port,
      layout,
      logger,
      engine,
      companions: started,
      stopped,
      stop,
      get fault() {
        return storage.fault;
      },
      get stopReason() {
        return stopReason;
      },
    };
  } catch (error) {
    await stop(`startup failed: ${(error as Error).message}`);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(
        `port ${settings.port} on ${settings.host} is already in use; choose another --port, or leave it out for a dynamic port`,
      );
    }
    throw storage.fault ?? error;
  }
}

/**
 * The secrets a server knows from `env`: every provider key variable, and `keyVars` (the plan's
 * providers' own), by name.
 */
export function serverSecrets(env: NodeJS.ProcessEnv, keyVars: readonly string[] = []): SecretRedactor {
  const secrets = new SecretRedactor();
  secrets.addFromEnv(env, [...PROVIDER_KEY_VARS, TOKEN_VAR, ...keyVars]);
  return secrets;
}

/**
 * Leaves word that this execution's history was lost under its server, so a restart refuses rather
 * than beginning anew over what is left (the agents' homes, made again meanwhile, would hide it).
 */
function markHistoryLost(file: string, message: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${new Date().toISOString()} ${message}\n`);
  } catch {
    // The fatal error already says what happened; nothing more to do on a disk that refuses.
  }
}
