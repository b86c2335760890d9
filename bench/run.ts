/**
 * `npm run bench`: measures Cardwright over loopback with autocannon (50 connections, a fixed
 * time per scenario) on SQLite and, when TEST_DATABASE_URL is set, on PostgreSQL. In the same run
 * it measures the two references (bench/reference-server.ts), so every figure is also printed as
 * a ratio to them: (a) a bare Fastify route that does nothing, (b) a bare Fastify route running one
 * small write transaction on the same engine with the same settings.
 *
 * A measurement, not a test: it never fails. Environment: BENCH_SECONDS (default 10),
 * BENCH_WARMUP_SECONDS (default 2; the same connections warm up, then are measured, see
 * `measure`), BENCH_ONLY (substring filter on scenario names).
 * Each server is a separate process with LOG_LEVEL=warn (request logging would measure the
 * terminal, not the server).
 */
import crypto from 'node:crypto';
import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Lithic from 'lithic';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { hashApiKey } from '../src/programs/keys.js';
import { spawnListening, spawnServer, type ServerProcess } from '../src/testing/process.js';
import type { BenchContext } from './context.js';
import { scenarios, type Scenario, type ScenarioRequest } from './scenarios.js';

type Engine = 'sqlite' | 'postgres';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = 50;
const ONLY = process.env.BENCH_ONLY;
/** The scenario column: as wide as the longest name. */
const NAME_WIDTH = Math.max(46, ...scenarios.map((scenario) => scenario.name.length));

interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

interface Database {
  url: string;
  dataDir: string;
  drop(): Promise<void>;
}

async function createDatabase(engine: Engine): Promise<Database> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardwright-bench-'));
  const removeDir = async () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (engine === 'sqlite') return { url: `sqlite:${path.join(dataDir, 'bench.db')}`, dataDir, drop: removeDir };
  const base = process.env.TEST_DATABASE_URL as string;
  const schema = `cw_bench_${crypto.randomBytes(4).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await run(`CREATE SCHEMA ${schema}`);
  const separator = base.includes('?') ? '&' : '?';
  return {
    url: `${base}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    dataDir,
    drop: async () => {
      await run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await removeDir();
    },
  };
}

/**
 * One autocannon run of warm-up and measurement on the same connections: only responses that
 * arrive after the warm-up count. A server saturated by connections it already serves accepts a
 * new one per turn of its event loop, so connections opened afresh for the measurement would put
 * their own setup in the figure (their first requests waited up to seconds, and were the p99):
 * the measurement is of a server already serving its 50 connections.
 */
async function measure(url: string, request: ScenarioRequest, headers: Record<string, string> = {}): Promise<Measurement> {
  const latenciesMs: number[] = [];
  let measuring = false;
  let non2xx = 0;
  let measuredFromMs = performance.now();
  // Without a callback, autocannon returns its tracker (an EventEmitter) made thenable.
  const run = autocannon({
    url: `${url}${request.path}`,
    method: request.method,
    connections: CONNECTIONS,
    duration: WARMUP_SECONDS + SECONDS,
    headers: { ...headers, ...(request.body || request.makeBody ? { 'content-type': 'application/json' } : {}) },
    ...(request.body ? { body: JSON.stringify(request.body) } : {}),
    ...(request.makeBody
      ? { requests: [{ setupRequest: (req: object) => ({ ...req, body: JSON.stringify(request.makeBody?.()) }) }] }
      : {}),
  }) as Promise<autocannon.Result> & EventEmitter;
  const warmUp = setTimeout(() => {
    measuring = true;
    measuredFromMs = performance.now();
  }, WARMUP_SECONDS * 1000);
  run.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    if (!measuring) return;
    if (statusCode >= 200 && statusCode < 300) latenciesMs.push(responseTimeMs);
    else non2xx++;
  });
  const result = await run;
  clearTimeout(warmUp);
  const measuredSeconds = (performance.now() - measuredFromMs) / 1000;
  latenciesMs.sort((a, b) => a - b);
  const percentile = (fraction: number) => latenciesMs[Math.min(latenciesMs.length - 1, Math.floor(latenciesMs.length * fraction))] ?? 0;
  return {
    requestsPerSecond: latenciesMs.length / measuredSeconds,
    p50Ms: percentile(0.5),
    p99Ms: percentile(0.99),
    errors: result.errors + result.timeouts,
    non2xx,
  };
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

function row(engine: string, name: string, m: Measurement, refA: Measurement | undefined, refB: Measurement | undefined, verdict = ''): string {
  const ratio = (ref: Measurement | undefined) => (ref ? (m.requestsPerSecond / ref.requestsPerSecond).toFixed(2) : '-');
  const failures = m.errors + m.non2xx > 0 ? `  (${m.errors} errors, ${m.non2xx} non-2xx)` : '';
  return [
    engine.padEnd(9),
    name.padEnd(NAME_WIDTH),
    m.requestsPerSecond.toFixed(0).padStart(8),
    m.p50Ms.toFixed(1).padStart(8),
    m.p99Ms.toFixed(1).padStart(8),
    ratio(refA).padStart(7),
    ratio(refB).padStart(7),
    `  ${verdict}${failures}`,
  ].join(' ');
}

function verdictFor(scenario: Scenario, m: Measurement, refA: Measurement, refB: Measurement, earlier: ReadonlyMap<string, Measurement>): string {
  const { minRatio, maxP99Ms, maxP99RatioTo, minThroughputRatioTo, note } = scenario.target;
  const reference = scenario.reference === 'a' ? refA : refB;
  const parts: string[] = [];
  let pass = true;
  if (minRatio !== undefined) {
    const ratio = m.requestsPerSecond / reference.requestsPerSecond;
    parts.push(`≥${Math.round(minRatio * 100)}% of (${scenario.reference})`);
    pass &&= ratio >= minRatio;
  }
  if (maxP99Ms !== undefined) {
    parts.push(`p99<${maxP99Ms}ms`);
    pass &&= m.p99Ms < maxP99Ms;
  }
  const base = maxP99RatioTo === undefined ? undefined : earlier.get(maxP99RatioTo.scenario);
  if (maxP99RatioTo !== undefined && base !== undefined) {
    const ratio = m.p99Ms / Math.max(base.p99Ms, 1);
    parts.push(`p99 ≤${maxP99RatioTo.ratio}× "${maxP99RatioTo.scenario}" (${ratio.toFixed(2)}×)`);
    pass &&= ratio <= maxP99RatioTo.ratio;
  }
  const baseline = minThroughputRatioTo === undefined ? undefined : earlier.get(minThroughputRatioTo.scenario);
  if (minThroughputRatioTo !== undefined && baseline !== undefined) {
    const ratio = m.requestsPerSecond / baseline.requestsPerSecond;
    parts.push(`req/s ≥${minThroughputRatioTo.ratio}× "${minThroughputRatioTo.scenario}" (${ratio.toFixed(2)}×)`);
    pass &&= ratio >= minThroughputRatioTo.ratio;
  }
  if (parts.length === 0) return note ?? '';
  return `target ${parts.join(', ')}: ${pass ? 'met' : 'MISSED'}${note ? ` (${note})` : ''}`;
}

async function benchEngine(engine: Engine): Promise<void> {
  const lines: string[] = [];
  const noop = await spawnListening(['dist/bench/reference-server.js', 'noop'], {}, /listening (\S+)/);
  const refA = await measure(noop.url, { method: 'GET', path: '/' });
  await stop(noop);
  lines.push(row(engine, 'reference (a): no-op route', refA, refA, undefined));

  const refDatabase = await createDatabase(engine);
  const writer = await spawnListening(['dist/bench/reference-server.js', 'write', refDatabase.url], {}, /listening (\S+)/);
  const refB = await measure(writer.url, { method: 'POST', path: '/' });
  await stop(writer);
  await refDatabase.drop();
  lines.push(row(engine, 'reference (b): one write transaction', refB, refA, refB));
  process.stdout.write(`${lines.join('\n')}\n`);

  const database = await createDatabase(engine);
  const apiKey = `bench-${crypto.randomBytes(12).toString('hex')}`;
  const server = await spawnServer({
    DATABASE_URL: database.url,
    CARDWRIGHT_DATA_DIR: database.dataDir,
    CARDWRIGHT_API_KEYS: apiKey,
    LOG_LEVEL: 'warn',
  });
  // Seeding only: the server's own worker does the checkpoints.
  const db = openDatabase(database.url, { dataDir: database.dataDir, sqliteCheckpoints: { enabled: false } });
  try {
    const key = await db.kysely.selectFrom('api_keys').select('program_id').where('key_hash', '=', hashApiKey(apiKey)).executeTakeFirstOrThrow();
    const context: BenchContext = {
      engine,
      url: server.url,
      apiKey,
      client: new Lithic({ apiKey, baseURL: server.url, maxRetries: 0 }),
      db,
      programId: key.program_id,
    };
    const measured = new Map<string, Measurement>();
    for (const scenario of scenarios) {
      if (scenario.engines && !scenario.engines.includes(engine)) continue;
      if (ONLY && !scenario.name.includes(ONLY)) continue;
      const request = await scenario.prepare(context);
      const m = await measure(server.url, request, { authorization: apiKey });
      measured.set(scenario.name, m);
      process.stdout.write(`${row(engine, scenario.name, m, refA, refB, verdictFor(scenario, m, refA, refB, measured))}\n`);
    }
  } finally {
    await db.close();
    await stop(server);
    await database.drop();
  }
}

async function main(): Promise<void> {
  const engines: Engine[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  process.stdout.write(
    `Cardwright benchmark: ${CONNECTIONS} connections, ${SECONDS}s per figure after ${WARMUP_SECONDS}s warm-up, engines: ${engines.join(', ')}\n` +
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}\n\n` +
      `${'engine'.padEnd(9)} ${'scenario'.padEnd(NAME_WIDTH)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'vs (a)'.padStart(7)} ${'vs (b)'.padStart(7)}\n`,
  );
  for (const engine of engines) await benchEngine(engine);
}

main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
