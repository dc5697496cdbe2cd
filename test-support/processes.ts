/**
 * Private, stoppable instances of the real servers for fault tests: a Redis and a MongoDB-protocol
 * server (FerretDB as scripts/services built it, or `mongod` where that is what this machine has),
 * each on its own free port with its own data directory, so stopping one disturbs no other test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect } from 'node:net';
import { freePort } from './auth-server.js';

const ROOT = resolve(import.meta.dirname, '..');

/** A server process that can be stopped and started again on the same port and data. */
export interface ServerProcess {
  port: number;
  url: string;
  start(): Promise<void>;
  /** SIGTERM (a clean stop: Redis writes its append-only file) or SIGKILL. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

function managed(port: number, url: string, command: () => [string, string[]]): ServerProcess {
  let child: ChildProcess | undefined;
  let output = '';
  return {
    port,
    url,
    async start() {
      const [bin, args] = command();
      child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (d: Buffer) => (output += d));
      child.stderr!.on('data', (d: Buffer) => (output += d));
      for (let i = 0; i < 100; i++) {
        if (await portOpen(port)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${bin} did not start on ${port}:\n${output}`);
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((done) => {
        c.once('exit', () => done());
        c.kill(signal);
      });
    },
  };
}

/** A private Redis with an append-only file fsynced on every write. */
export async function privateRedis(): Promise<ServerProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fault-redis-'));
  const server = managed(port, `redis://127.0.0.1:${port}`, () => [
    'redis-server',
    [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
    ],
  ]);
  await server.start();
  return server;
}

/** A private MongoDB-protocol server: FerretDB from .data/bin, else mongod. */
export async function privateMongo(): Promise<ServerProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fault-mongo-'));
  const ferret = join(ROOT, '.data/bin/ferretdb');
  const server = managed(port, `mongodb://127.0.0.1:${port}/faults`, () =>
    existsSync(ferret)
      ? [
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
        ]
      : ['mongod', ['--bind_ip', '127.0.0.1', '--port', String(port), '--dbpath', dir]],
  );
  await server.start();
  return server;
}
