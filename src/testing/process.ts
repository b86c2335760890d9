/**
 * Runs the built server (`dist/src/cli.js`, what `npm start` runs) as a child process, for tests of
 * what only a real process shows (restarts, `kill -9`, SIGTERM, the printed first key, the CLI) and
 * for the benchmark. `npm test` builds before running tests.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import url from 'node:url';

const DIST_SRC = path.resolve('dist/src');
const CLI = path.join(DIST_SRC, 'cli.js');
/** The package's `cardwright` command (`npx cardwright`), which runs the built CLI. */
export const BIN = path.resolve('bin/cardwright.js');

function assertBuilt(): void {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** Starts the built Cardwright server on a free port and resolves once it listens; `cwd` is where `./data` is. */
export function spawnServer(env: Record<string, string>, cwd?: string): Promise<ServerProcess> {
  assertBuilt();
  return spawnListening(
    [CLI, 'serve'],
    { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    cwd,
  );
}

/**
 * Runs `npm start` in this checkout (which builds, then serves) and resolves once it listens. The
 * child is npm; the server is the process it started (the `pid` of its log lines).
 */
export function spawnNpmStart(env: Record<string, string>): Promise<ServerProcess> {
  // The build before the start can take a while on a loaded machine, when something changed.
  // HOST is left to its default (127.0.0.1), which the URL matched shows.
  return spawnUntil('npm', ['start'], { PORT: '0', HOME: process.env.HOME ?? '', ...env }, /listening on (http:\/\/127\.0\.0\.1:\d+)/, { timeoutMs: 120_000 });
}

/** Runs `node <args>` and resolves once its output matches `listening` (group 1 is the URL). */
export function spawnListening(args: string[], env: Record<string, string>, listening: RegExp, cwd?: string): Promise<ServerProcess> {
  return spawnUntil(process.execPath, args, env, listening, { cwd });
}

async function spawnUntil(command: string, args: string[], env: Record<string, string>, listening: RegExp, options: { cwd?: string; timeoutMs?: number }): Promise<ServerProcess> {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), options.timeoutMs ?? 20_000);
    const check = () => {
      const match = listening.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { url, child, output: () => output, exited };
}

/** Runs the built CLI (`entry`: `dist/src/cli.js`, or the package's `bin/cardwright.js`) to its end. */
export function runCli(args: string[], env: Record<string, string>, entry = CLI): { status: number | null; stdout: string; stderr: string } {
  assertBuilt();
  const result = spawnSync(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    // A server that should have refused to start would otherwise keep the test waiting forever.
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The built modules of `src` that a test may import (those a process would load), relative to
 * dist/src: not tests, test helpers, nor `cli.js` (the entry point: importing it runs a command).
 */
export function builtModules(): string[] {
  assertBuilt();
  return fs
    .readdirSync(DIST_SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js') && !file.endsWith('.test.js') && !file.startsWith(`testing${path.sep}`) && file !== 'cli.js')
    .sort();
}

/** Imports the built module `file` (relative to dist/src) as the first module of a fresh Node process; resolves with what it printed to stderr when it failed. */
export function importAlone(file: string): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', 'await import(process.argv[1])', url.pathToFileURL(path.join(DIST_SRC, file)).href], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}
