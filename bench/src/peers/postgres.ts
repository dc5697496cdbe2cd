/**
 * A dedicated PostgreSQL 15 for Hydra (`synchronous_commit=off`: our Redis's durability); its CPU is
 * that of its process tree, a backend per connection.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench } from '../lib/bench.js';
import { childPids, cpuTicks, statFields } from '../lib/proc.js';
import { freePort, portAccepts, startProcess, waitUntil } from '#test-support/processes.js';

/** A running PostgreSQL: its DSN for Hydra, and the CPU of its process tree. */
export interface Postgres {
  dsn: string;
  pid: number;
  /** CPU ticks (USER_HZ) of the postmaster, its exited children and its live children. */
  ticks: () => number;
}

function treeTicks(pid: number): number {
  const f = statFields(pid);
  let ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  for (const child of childPids(pid)) {
    try {
      ticks += cpuTicks(child);
    } catch {
      // exited between the two reads: its CPU is in the postmaster's cutime by now
    }
  }
  return ticks;
}

/** Initialises and starts PostgreSQL with user `hydra` (trust auth on loopback). */
export async function startPostgres(bench: Bench): Promise<Postgres> {
  const bin = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  const data = join(bench.dir, 'hydra-pg');
  mkdirSync(data, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(data, id('-u'), id('-g'));
  }
  const cmd = (name: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, name), ...args]] : [join(bin, name), args];
  execFileSync(...cmd('initdb', ['-D', data, '-U', 'hydra', '-A', 'trust', '-E', 'UTF8', '--no-sync']), {
    stdio: 'ignore',
  });
  const port = await freePort();
  const p = startProcess(
    'postgres',
    ...cmd('postgres', [
      '-D',
      data,
      '-k',
      data,
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-c',
      'synchronous_commit=off',
    ]),
    { log: join(bench.dir, 'logs', 'hydra-postgres.log') },
  );
  await waitUntil(p, () => portAccepts(port), `port ${port}`);
  const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    dsn: `postgres://hydra@127.0.0.1:${port}/postgres?sslmode=disable`,
    pid,
    ticks: () => treeTicks(pid),
  };
}
