/**
 * Child processes for tests and the bench, one way: a free loopback port, a process started with its
 * output kept (in memory, or appended to a log file), a wait until it answers that gives up early when
 * it has exited and then shows its last output, and a stop (SIGTERM, SIGKILL after a grace period).
 * Every process started here is remembered, so {@link stopAll} and {@link killAllNow} can end what a
 * run left behind. No library: each piece is a few lines of `node:child_process` and `node:net`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

const children = new Set<ChildProcess>();

/**
 * Ports handed out by {@link freePort}: each jest worker (and a process outside jest, worker 0) has its
 * own block below Linux's ephemeral range (32768–60999). A port from `listen(0)` sits free between the
 * moment it is named in a URL and the moment its server binds it, and under the whole suite another
 * worker's `listen(0)` or an outgoing connection can take it meanwhile: a stack then talked to another
 * stack's server. Blocks keep workers apart, and the kernel never picks a port below the range itself.
 * 27000–27999 stays out (the services' MongoDB port). TEST_PORT_BASE moves the blocks, for two test
 * runs on one machine at once (two checkouts).
 */
const PORT_BLOCK = 500;
const FIRST_PORT = Number(process.env.TEST_PORT_BASE ?? 20_000);
const WORKER_BLOCKS = 12;
const worker = Number(process.env.JEST_WORKER_ID ?? 0) % WORKER_BLOCKS;
const blockStart = FIRST_PORT + worker * PORT_BLOCK;
let cursor = Math.floor(Math.random() * PORT_BLOCK);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free TCP port on 127.0.0.1 from this worker's block (so a URL can name it before its server starts). */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < PORT_BLOCK; tried++) {
    const port = blockStart + (cursor++ % PORT_BLOCK);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${blockStart}-${blockStart + PORT_BLOCK - 1}`);
}

/** A started child process. */
export interface Started {
  name: string;
  pid: number;
  child: ChildProcess;
  /** Its output as chunks, in order, while it has no log file (empty with one). */
  lines: string[];
  /** Its last lines of output (from memory or from its log file). */
  tail(): string;
  /** Ends it with `signal` (default SIGTERM; SIGKILL 10 s later if it still runs); resolves once it has exited. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/**
 * Starts `command args`; its output is kept in `lines`, or appended to the file `log`. With `stdin`,
 * its standard input is a pipe (`child.stdin`) instead of nothing.
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; log?: string; stdin?: boolean } = {},
): Started {
  const fd = opts.log ? openSync(opts.log, 'a') : undefined;
  const child = spawn(command, args, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdio: [opts.stdin ? 'pipe' : 'ignore', fd ?? 'pipe', fd ?? 'pipe'],
  });
  if (fd !== undefined) closeSync(fd);
  // A command that cannot be spawned (ENOENT) has no pid, and Node then emits 'error' on the next
  // tick: with no listener that crashed the whole run (a fresh machine without nginx took scripts/bench
  // down) instead of failing the one step with the message below. Later errors (a failed kill) are
  // the exit's business.
  child.on('error', () => undefined);
  if (!child.pid) throw new Error(`could not start ${name} (${command}: not found or not executable)`);
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines: string[] = [];
  child.stdout?.on('data', (d: Buffer) => lines.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => lines.push(d.toString()));
  const tail = () => {
    if (!opts.log) return lines.join('').slice(-3000);
    try {
      return readFileSync(opts.log, 'utf8').split('\n').slice(-25).join('\n');
    } catch {
      return '(no log)';
    }
  };
  return { name, pid: child.pid, child, lines, tail, stop: (signal) => stopProcess(child, signal) };
}

/** Ends `child` with `signal` (then SIGKILL after 10 s); resolves once it has exited. */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/** Whether 127.0.0.1:`port` accepts a TCP connection now. */
export function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether `url` answers HTTP now: any status, or exactly `status` when given. */
export async function httpAnswers(url: string, status?: number): Promise<boolean> {
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    return status === undefined || res.status === status;
  } catch {
    return false;
  }
}

/** Polls `check` every 100 ms until it holds; fails at once if `p` exits, with its last output. */
export async function waitUntil(
  p: Started,
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) break;
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${p.name} did not come up (${what}):\n${p.tail()}`);
}

/** Polls `check` every 100 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function pollUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

/** Stops every process still running (SIGTERM, then SIGKILL after 10 s). */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((c) => stopProcess(c)));
}

/** Synchronous last resort on exit: SIGKILL whatever is left. */
export function killAllNow(): void {
  for (const child of children) child.kill('SIGKILL');
}
