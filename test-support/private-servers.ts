/**
 * Private instances of the real data servers, each on its own free port with its own data directory:
 * a Redis and a MongoDB-protocol server (`mongod` where this machine has one, else FerretDB as
 * scripts/services built it: the same choice scripts/services makes). Fault tests stop and restart
 * them without disturbing any other test; the bench runs its own so their CPU is the servers' alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, portAccepts, startProcess, waitUntil, type Started } from './processes.js';

/** The repository root: the first folder up from here with the lockfile (this file also runs built). */
function repositoryRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package-lock.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** A server process that can be stopped and started again on the same port and data. */
export interface ServerProcess {
  port: number;
  url: string;
  /** The running process (a new one after each start). */
  process?: Started;
  start(): Promise<void>;
  /** SIGTERM (a clean stop: Redis writes its append-only file) or SIGKILL. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Where a private server keeps its data and (optionally) its log. */
export interface PrivateServerOptions {
  /** Its data directory (default: a new temporary one). */
  dir?: string;
  /** A file its output is appended to (default: kept in memory). */
  log?: string;
}

function managed(
  name: string,
  port: number,
  url: string,
  command: [string, string[]],
  log: string | undefined,
): ServerProcess {
  const server: ServerProcess = {
    port,
    url,
    async start() {
      const p = startProcess(name, command[0], command[1], log ? { log } : {});
      server.process = p;
      await waitUntil(p, () => portAccepts(port), `127.0.0.1:${port}`);
    },
    stop: async (signal) => server.process?.stop(signal),
  };
  return server;
}

function dataDir(opts: PrivateServerOptions, prefix: string): string {
  if (!opts.dir) return mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(opts.dir, { recursive: true });
  return opts.dir;
}

/**
 * A private Redis with an append-only file (`fsync`: every write, as the fault tests need, or every
 * second as scripts/services runs it); never rewritten in the background, where a fork would land
 * inside some measurement.
 */
export async function privateRedis(
  opts: PrivateServerOptions & { fsync?: 'always' | 'everysec' } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const dir = dataDir(opts, 'private-redis-');
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--appendonly', 'yes'];
  args.push('--appendfsync', opts.fsync ?? 'always', '--save', '', '--auto-aof-rewrite-percentage', '0');
  const server = managed('redis', port, `redis://127.0.0.1:${port}`, ['redis-server', args], opts.log);
  await server.start();
  return server;
}

function onPath(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A private MongoDB-protocol server; `url` names the database `database` (default `test`). */
export async function privateMongo(
  opts: PrivateServerOptions & { database?: string } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const dir = dataDir(opts, 'private-mongo-');
  const ferret = join(repositoryRoot(), '.data/bin/ferretdb');
  const command: [string, string[]] = onPath('mongod')
    ? ['mongod', ['--bind_ip', '127.0.0.1', '--port', String(port), '--dbpath', dir]]
    : [
        ferret,
        [
          '--handler=sqlite',
          `--sqlite-url=file:${dir}/`,
          `--state-dir=${dir}`,
          `--listen-addr=127.0.0.1:${port}`,
          '--debug-addr=-',
          '--telemetry=disable',
          '--log-level=error',
        ],
      ];
  if (command[0] === ferret && !existsSync(ferret)) {
    throw new Error(`${ferret} is missing: run scripts/services start once`);
  }
  const url = `mongodb://127.0.0.1:${port}/${opts.database ?? 'test'}`;
  const server = managed('mongo', port, url, command, opts.log);
  await server.start();
  return server;
}
