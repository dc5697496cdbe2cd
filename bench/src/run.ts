/**
 * scripts/bench's driver: starts the stack, runs the measures (BENCH_ONLY: some), prints a line each and
 * a summary, writes results.json and the chart after a full run, exits 1 when a goal is missed.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { bootstrap } from '@school/auth-server/dist/bootstrap.js';
import { loadConfig } from '@school/auth-server/dist/config.js';
import { createLogger } from '@school/auth-server/dist/logger.js';
import { AUTH_SERVER_NODE_FLAGS } from '@school/auth-server/dist/node-flags.js';
import { freePort, killAllNow, stopAll } from '#test-support/processes.js';
import { writeRequests } from './lib/bench.js';
import type { Bench, Measure, MeasureResult, Outcome, Status } from './lib/bench.js';
import { cpuChart } from './lib/chart.js';
import { inspectPortFlag } from './lib/inspector.js';
import { runLoad } from './lib/load.js';
import { apiEnvironment, authEnvironment, freshDir, startNode, startStores } from './lib/stack.js';
import { EXPERIMENTS, MEASURES } from './measures/index.js';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, '.data', 'bench');
const resultsDir = join(root, 'bench', 'results');
const started = Date.now();
const loadAtStart = loadavg();
const log = (m: string) =>
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${m}\n`);
const out = (line: string) => process.stdout.write(`${line}\n`);

process.on('SIGINT', () => {
  killAllNow();
  process.exit(130);
});
process.on('exit', killAllNow);

/** A measure's record: its outcome without the line's text, figures rounded to 0.01. */
function measureResult(m: Measure, { text: _text, rows, ...recorded }: Outcome): MeasureResult {
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    id: m.id,
    title: m.title,
    goal: m.goal,
    ...recorded,
    ...(rows && {
      rows: rows.map((r) => ({
        server: r.server,
        rps: round(r.rps),
        p50ms: round(r.p50ms),
        p99ms: round(r.p99ms),
        cpuUs: round(r.cpuUs),
      })),
    }),
  };
}

async function main(): Promise<number> {
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim().toUpperCase());
  const measures = only ? [...MEASURES, ...EXPERIMENTS].filter((m) => only.includes(m.id)) : MEASURES;
  const env = (name: string, seconds: number) => Number(process.env[name] ?? seconds);
  const durations = { run: env('BENCH_RUN', 5), ref: env('BENCH_REF', 3), warm: env('BENCH_WARM', 3) };

  freshDir(dir);
  log('starting Redis and the MongoDB-protocol server');
  const { redis, mongo, mongoUri } = await startStores(dir);
  const authPort = await freePort();
  const authEnv = authEnvironment(dir, redis.url, mongoUri, authPort);
  const account = { email: 'admin@bench.test', password: randomBytes(12).toString('base64url') };
  // The bench's own handle on the same storage: seeds the account, mints tokens through the models.
  const runtime = await bootstrap(loadConfig(authEnv), createLogger('warn', 'bench'));
  await runtime.accounts.upsert({ ...account, name: 'Bench Admin', role: 'admin' });

  log('starting the auth server and the reference server');
  // No inspector until MEM-AS opens it for a full GC (and closes it again): lib/inspector.ts.
  const authInspectPort = await freePort();
  const auth = await startNode(dir, 'auth-server', join(root, 'packages/auth-server/dist/main.js'), {
    port: authPort,
    env: () => authEnv,
    flags: [...AUTH_SERVER_NODE_FLAGS, inspectPortFlag(authInspectPort)],
  });
  const bare = await startNode(dir, 'bare', join(root, 'bench/dist/servers/bare.js'), { health: '/' });
  // The machine's speed beside the figures: bare node:http's CPU per request, these machines being shared.
  const bareHttp = { name: 'bare http', url: bare.url, processes: { node: bare.pid } };
  const machine = await runLoad(bareHttp, 3);
  out(`machine: bare node:http ${Math.round(machine.rps)} req/s, ${Math.round(machine.cpuUs)} µs/req`);

  const memos = new Map<string, Promise<unknown>>();
  const memo = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    if (!memos.has(key)) memos.set(key, fn());
    return memos.get(key) as Promise<T>;
  };
  const startApi: Bench['startApi'] = async (name, authUrl = auth.url, extra = {}) => {
    const [port, inspectPort] = [await freePort(), await freePort()];
    const env = { ...apiEnvironment(authEnv, authUrl, port, `http://127.0.0.1:${port}`), ...extra };
    // The demo school (`npm run seed` of the resource API), so its lists answer real JSON.
    await memo('seeded', () =>
      promisify(execFile)(process.execPath, [join(root, 'packages/resource-api/dist/seed.js')], {
        env: { ...process.env, ...env },
      }).then(({ stderr }) => process.stderr.write(stderr)),
    );
    const script = join(root, 'packages/resource-api/dist/main.js');
    const flags = [inspectPortFlag(inspectPort)];
    const server = await startNode(dir, name, script, { port, env: () => env, flags });
    return { ...server, inspectPort, env };
  };
  const bench: Bench = {
    root,
    dir,
    durations,
    redis,
    authEnv,
    auth,
    bareHttp,
    authInspectPort,
    account,
    runtime,
    authProcesses: { node: auth.pid, redis: redis.pid },
    authShown: { mongo: mongo?.pid },
    resourceApi: (i = 0) =>
      memo(`resource-api:${i}`, () => startApi(i ? `resource-api-${i + 1}` : 'resource-api')),
    startApi,
    memo,
    requests: (name, lines) => writeRequests(dir, name, lines),
    log,
  };

  const results: MeasureResult[] = [];
  const width = Math.max(...measures.map((m) => m.title.length));
  for (const m of measures) {
    log(`${m.id}: ${m.title}`);
    const outcome = await m.run(bench).catch((err: unknown) => ({
      status: 'FAIL' as const,
      text: `error: ${err instanceof Error ? err.message : String(err)}`,
    }));
    results.push(measureResult(m, outcome));
    out(`${m.id.padEnd(7)} ${m.title.padEnd(width)}  ${outcome.text}  | goal ${m.goal}  ${outcome.status}`);
  }

  await runtime.close();
  await stopAll();
  const seconds = Math.round((Date.now() - started) / 1000);
  const date = `${new Date().toISOString().slice(0, 16)}Z`;
  if (!only) {
    const bareHttp = { rps: Math.round(machine.rps), cpuUs: Math.round(machine.cpuUs) };
    const json = { date, seconds, bareHttp, measures: results };
    writeFileSync(join(resultsDir, 'results.json'), `${JSON.stringify(json, null, 2)}\n`);
    writeFileSync(join(resultsDir, 'cpu-per-request.svg'), cpuChart({ date, measures: results }));
    log('wrote bench/results/results.json and bench/results/cpu-per-request.svg');
  }
  const ids = (status: Status) => results.filter((r) => r.status === status).map((r) => r.id);
  const failed = ids('FAIL');
  const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(', ');
  out('');
  out(
    `bench: ${ids('PASS').length} passed, ${failed.length} failed${failed.length ? ` (${failed.join(', ')})` : ''}, ` +
      `${ids('SKIP').length} skipped, in ${seconds} s; ${date}, ` +
      `load average ${load(loadAtStart)} at the start, ${load(loadavg())} at the end (${cpus().length} CPUs)`,
  );
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await stopAll();
    process.exit(2);
  },
);
