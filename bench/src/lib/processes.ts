/**
 * Starting and stopping the processes a bench run needs, each as a child of the bench, on loopback,
 * with its output in a log file. Everything started is stopped again on exit (also on Ctrl-C).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

const children = new Set<ChildProcess>();

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A started child process. */
export interface Started {
  name: string;
  pid: number;
  log: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `command args` with `env`, stdout and stderr appended to `log`. */
export function start(
  name: string,
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; log: string; cwd?: string },
): Started {
  const fd = openSync(opts.log, 'a');
  const child = spawn(command, args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  if (!child.pid) throw new Error(`could not start ${name} (${command})`);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return { name, pid: child.pid, log: opts.log, child, stop: () => stopChild(child) };
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-25).join('\n');
  } catch {
    return '(no log)';
  }
}

async function waitFor(p: Started, check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (p.child.exitCode !== null) break;
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.name} did not come up (${what}); its log ${p.log}:\n${tail(p.log)}`);
}

/** Waits until `port` accepts TCP connections. */
export function waitPort(p: Started, port: number): Promise<void> {
  const probe = () =>
    new Promise<boolean>((resolve) => {
      const s = createConnection({ host: '127.0.0.1', port });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
  return waitFor(p, probe, `127.0.0.1:${port}`);
}

/** Waits until `url` answers HTTP 200. */
export function waitHttp(p: Started, url: string): Promise<void> {
  const probe = async () => {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  };
  return waitFor(p, probe, url);
}

/** Stops one child: SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Stops every child still running (SIGTERM, then SIGKILL after 10 s). */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map(stopChild));
}

/** Synchronous last resort for process exit: SIGKILL whatever is left. */
export function killAllNow(): void {
  for (const child of children) child.kill('SIGKILL');
}
