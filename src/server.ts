/**
 * Starting and stopping a Cardwright server: open the database, apply migrations, check the
 * encryption key, provision the configured keys, listen (then make the one-time key, if
 * needed), send webhooks (event_subscriptions/delivery.ts), and every
 * minute run every program's clock jobs and delete expired idempotency records. On SIGTERM/SIGINT
 * (`closeOnSignals`) it stops accepting connections, lets in-flight requests finish, stops the
 * webhook dispatcher (aborting its requests), then closes the database; past SHUTDOWN_DEADLINE_MS
 * (10 s), or on a second signal, it exits without waiting.
 */
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp } from './app.js';
import { sweepAllPrograms } from './clock-jobs.js';
import { startSweeper } from './sweeper.js';
import { expireIdempotencyRecords } from './http/idempotency.js';
import { systemClock, type WallClock } from './clock.js';
import { ConfigError, type Config } from './config.js';
import { verifyEncryptionKey } from './crypto/key-check.js';
import { keyFile, loadEncryptionKey, Secrets } from './crypto/secrets.js';
import { connectDatabase, type Db } from './db/database.js';
import { Dispatcher, type DispatcherOptions } from './event_subscriptions/delivery.js';
import { warnOfCheckpointerError } from './db/sqlite.js';
import { migrateToLatest } from './db/migrate.js';
import { sendError } from './http/errors.js';
import { loggerOptions, logsRequests } from './logger.js';
import { AuthCache } from './programs/auth-cache.js';
import { ClockGate } from './programs/clock-gate.js';
import { provisionKeys, type CreatedKey } from './programs/service.js';

const CLOCK_SWEEP_INTERVAL_MS = 60_000;

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  wall?: WallClock;
  logStream?: DestinationStream;
  /** Called with the key created on first start, once the server listens (the CLI prints it). */
  onKeyGenerated?: (created: CreatedKey) => void;
  /** The webhook dispatcher's settings (tests use a retry schedule in milliseconds). */
  delivery?: Partial<DispatcherOptions>;
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const wall = options.wall ?? systemClock;
  // The database opens before the app and its logger exist: until then its background errors are warnings.
  let reportBackgroundError = warnOfCheckpointerError;
  const sqliteCheckpoints = { onError: (message: string) => reportBackgroundError(message) };
  const db = await connectDatabase(config.databaseUrl, { dataDir: config.dataDir, pgPoolSize: config.pgPoolSize, sqliteCheckpoints });
  let built: FastifyInstance | undefined;
  try {
    await migrateToLatest(db);
    const secrets = new Secrets(loadEncryptionKey(config.encryptionKey, config.dataDir));
    const keySource = config.encryptionKey ? 'the configured key' : `the key in ${keyFile(config.dataDir)}`;
    await verifyEncryptionKey(db, secrets, keySource, wall.nowMs());
    // Configured keys work from the first request the port takes.
    if (config.apiKeys.length > 0) await provisionKeys(db, wall, config.apiKeys);
    const app = await buildApp({ db, wall, secrets, authCache: new AuthCache(wall), clockGate: new ClockGate() }, { logger: loggerOptions(config.logLevel, options.logStream), logRequests: logsRequests(config.logLevel) });
    built = app;
    reportBackgroundError = (message) => app.log.error({ component: 'sqlite-checkpointer' }, message);
    const sweeper = startSweeper(CLOCK_SWEEP_INTERVAL_MS, async () => {
      await Promise.all([
        sweepAllPrograms(db, wall).catch((error: unknown) => app.log.error({ err: error }, 'clock job sweep failed')),
        expireIdempotencyRecords(db, wall).catch((error: unknown) => app.log.error({ err: error }, 'idempotency retention sweep failed')),
      ]);
    });
    const dispatcher = new Dispatcher(db, secrets, wall, app.log, options.delivery);
    dispatcher.start();
    app.addHook('onClose', async () => {
      await Promise.all([sweeper.stop(), dispatcher.stop()]);
      await db.close();
    });
    // While shutting down, a request that arrives is refused (503: the SDKs retry it) and answers
    // close their connection so that keep-alive clients let go.
    let closing = false;
    app.addHook('onRequest', (request, reply, done) => {
      if (!closing) return done();
      sendError(request, reply, 503, 'The server is shutting down: retry (a retry with the same Idempotency-Key never applies a request twice)');
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
    const address = await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
      throw listenError(error, config);
    });
    // The one-time key is made once the port is ours: a start that cannot listen (PORT taken, bad
    // HOST) must not create and show it, or the next start, which can, would not show it again.
    if (config.apiKeys.length === 0) {
      const { generated } = await provisionKeys(db, wall, []);
      if (generated) options.onKeyGenerated?.(generated);
    }
    const close = async () => {
      closing = true;
      await app.close();
    };
    return { app, db, url: address, close };
  } catch (error) {
    // The app, once built, stops its dispatcher and sweeper and closes the database as it closes
    // (onClose). A failure to clean up must not hide why the start failed.
    await (built ? built.close() : db.close()).catch(() => undefined);
    throw error;
  }
}

/** A failure to listen as a ConfigError naming the variable at fault (HOST or PORT), else unchanged. */
function listenError(error: unknown, config: Pick<Config, 'host' | 'port'>): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const detail = error instanceof Error ? error.message : String(error);
  if (code === 'EADDRINUSE') return new ConfigError(`PORT: ${config.port} is already in use on ${config.host} (${detail})`);
  if (code === 'EACCES') return new ConfigError(`PORT: not allowed to listen on port ${config.port} (${detail})`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL' || code === 'EAI_FAIL') {
    return new ConfigError(`HOST: cannot listen on "${config.host}", not an address this machine can listen on (${detail})`);
  }
  return error;
}

/**
 * Longest a shutdown waits for in-flight requests. A request can wait far longer on the database (a
 * lock another client holds, a PostgreSQL that stopped answering); past this the process exits
 * without it, and the database rolls its transaction back, so nothing is half-written.
 */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Closes the server gracefully on SIGTERM or SIGINT, then exits 0; exits 1 when requests are still
 * in flight after SHUTDOWN_DEADLINE_MS, or at once on a second signal.
 */
export function closeOnSignals(server: RunningServer): void {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) {
      server.app.log.error({ signal }, 'second signal: exiting without waiting for in-flight requests');
      process.exit(1);
    }
    closing = true;
    server.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    setTimeout(() => {
      server.app.log.error(`shutdown: requests still in flight after ${SHUTDOWN_DEADLINE_MS / 1000} s; exiting without them (their transactions roll back)`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    server
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        server.app.log.error({ err: error }, 'error during shutdown');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
