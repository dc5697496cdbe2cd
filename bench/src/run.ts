/**
 * scripts/bench's driver. Starts the stack (lib/stack.ts), runs every measure of measures/index.ts,
 * prints one line per measure on stdout and a final summary line, writes bench/results/results.json
 * and the chart beside it, and exits 1 when a goal is missed. Progress goes to stderr.
 *
 * Environment: BENCH_ONLY=AS2,RS1 (subset; the results file and chart are then left alone),
 * BENCH_RUN / BENCH_REF / BENCH_WARM (seconds per case, reference and warm-up run of AS5, DCR, LG
 * and RS2; default 5, 3, 3), BENCH_LOG_LEVEL (the servers' LOG_LEVEL, default info as in
 * production), BENCH_MONGODB_URI (an external MongoDB, whose CPU is then not measured),
 * BENCH_VERBOSE=1 (every wrk run on stderr). Run with --experimental-websocket for MEM's inspector
 * connection; scripts/bench does.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bootstrap } from '@school/auth-server/dist/bootstrap.js';
import { loadConfig } from '@school/auth-server/dist/config.js';
import { createLogger } from '@school/auth-server/dist/logger.js';
import { AUTH_SERVER_NODE_FLAGS } from '@school/auth-server/dist/node-flags.js';
import { freePort, killAllNow, stopAll } from '#test-support/processes.js';
import { writeRequests, type Bench, type Outcome, type ResourceApiServer, type Status } from './lib/bench.js';
import { cpuChart } from './lib/chart.js';
import { inspectPortFlag } from './lib/inspector.js';
import { runLoad } from './lib/load.js';
import { writeResults, type MeasureResult } from './lib/results.js';
import {
  apiEnvironment,
  authEnvironment,
  freshDir,
  startMongo,
  startNodeServer,
  startRedis,
} from './lib/stack.js';
import { MEASURES } from './measures/index.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../..');
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

async function main(): Promise<number> {
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim().toUpperCase());
  const measures = MEASURES.filter((m) => !only || only.includes(m.id));
  const durations = {
    run: Number(process.env.BENCH_RUN ?? 5),
    ref: Number(process.env.BENCH_REF ?? 3),
    warm: Number(process.env.BENCH_WARM ?? 3),
  };

  freshDir(dir);
  log('starting Redis and the MongoDB-protocol server');
  const redis = await startRedis(dir);
  const mongo = await startMongo(dir);
  const authPort = await freePort();
  const authEnv = authEnvironment(dir, redis.url, mongo.uri, authPort);
  const account = { email: 'admin@bench.test', password: randomBytes(12).toString('base64url') };

  // The bench's own handle on the same storage: seeds the account, mints tokens through the models.
  const runtime = await bootstrap(loadConfig(authEnv), createLogger('warn', 'bench'));
  await runtime.accounts.upsert({ ...account, name: 'Bench Admin', role: 'admin' });

  log('starting the auth server and the reference server');
  // No inspector until MEM-AS opens it for a full GC (and closes it again): lib/inspector.ts.
  const authInspectPort = await freePort();
  const auth = await startNodeServer(
    'auth-server',
    join(root, 'packages/auth-server/dist/main.js'),
    [],
    authEnv,
    dir,
    authEnv.BASE_URL,
    '/healthz',
    [...AUTH_SERVER_NODE_FLAGS, inspectPortFlag(authInspectPort)],
  );
  const barePort = await freePort();
  const bare = await startNodeServer(
    'bare',
    join(root, 'bench/dist/servers/bare.js'),
    [String(barePort)],
    {},
    dir,
    `http://127.0.0.1:${barePort}`,
    '/',
  );

  // The machine's speed beside the figures: bare node:http's CPU per request, these machines being shared.
  const machine = await runLoad({ name: 'bare http', url: bare.url, processes: { node: bare.pid } }, 3);
  out(`machine: bare node:http ${Math.round(machine.rps)} req/s, ${Math.round(machine.cpuUs)} µs/req`);

  const memos = new Map<string, Promise<unknown>>();
  let seeded: Promise<unknown> | undefined;
  const startApi = async (name: string, authUrl = auth.url, extra: Record<string, string> = {}) => {
    const [port, inspectPort] = [await freePort(), await freePort()];
    const env = { ...apiEnvironment(authEnv, authUrl, port), ...extra };
    // The demo school (`npm run seed` of the resource API), so its lists answer real JSON.
    seeded ??= promisify(execFile)(process.execPath, [join(root, 'packages/resource-api/dist/seed.js')], {
      env: { ...process.env, ...env },
    }).then(({ stderr }) => log(stderr.trim()));
    await seeded;
    const script = join(root, 'packages/resource-api/dist/main.js');
    const flags = [inspectPortFlag(inspectPort)];
    const server = await startNodeServer(name, script, [], env, dir, env.BASE_URL!, '/healthz', flags);
    return { ...server, inspectPort, env } satisfies ResourceApiServer;
  };
  const bench: Bench = {
    root,
    dir,
    durations,
    redis,
    mongo: mongo.server,
    authEnv,
    auth,
    authInspectPort,
    account,
    introspector: {
      clientId: authEnv.INTROSPECTION_CLIENT_ID,
      clientSecret: authEnv.INTROSPECTION_CLIENT_SECRET,
    },
    runtime,
    authProcesses: () => ({ node: auth.pid, redis: redis.pid }),
    authShown: () => ({ mongo: mongo.server?.pid }),
    resourceApi: (instance = 0) =>
      bench.memo(`resource-api:${instance}`, () =>
        startApi(instance === 0 ? 'resource-api' : `resource-api-${instance + 1}`),
      ),
    startApi,
    memo<T>(key: string, fn: () => Promise<T>): Promise<T> {
      if (!memos.has(key)) memos.set(key, fn());
      return memos.get(key) as Promise<T>;
    },
    requests: (name, lines) => writeRequests(dir, name, lines),
    log,
  };

  const counts: Record<Status, number> = { PASS: 0, FAIL: 0, SKIP: 0 };
  const failed: string[] = [];
  const results: MeasureResult[] = [];
  const width = Math.max(...measures.map((m) => m.title.length));
  for (const m of measures) {
    log(`${m.id}: ${m.title}`);
    m.overlap?.(bench);
    const outcome: Outcome = await m.run(bench).catch((err: unknown) => ({
      status: 'FAIL' as const,
      text: `error: ${err instanceof Error ? err.message : String(err)}`,
    }));
    const { text, rows, ...recorded } = outcome;
    const round = (n: number) => Math.round(n * 100) / 100;
    results.push({
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
    });
    counts[outcome.status]++;
    if (outcome.status === 'FAIL') failed.push(m.id);
    out(`${m.id.padEnd(7)} ${m.title.padEnd(width)}  ${text}  | goal ${m.goal}  ${outcome.status}`);
  }

  await runtime.close();
  await stopAll();
  const secs = Math.round((Date.now() - started) / 1000);
  const date = `${new Date().toISOString().slice(0, 16)}Z`;
  if (!only) {
    const bareHttp = { rps: Math.round(machine.rps), cpuUs: Math.round(machine.cpuUs) };
    writeResults(join(resultsDir, 'results.json'), { date, seconds: secs, bareHttp, measures: results });
    writeFileSync(join(resultsDir, 'cpu-per-request.svg'), cpuChart({ date, measures: results }));
    log('wrote bench/results/results.json and bench/results/cpu-per-request.svg');
  }
  const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(', ');
  out('');
  out(
    `bench: ${counts.PASS} passed, ${counts.FAIL} failed${failed.length ? ` (${failed.join(', ')})` : ''}, ` +
      `${counts.SKIP} skipped, in ${secs} s; ${date}, ` +
      `load average ${load(loadAtStart)} at the start, ${load(loadavg())} at the end (${cpus().length} CPUs)`,
  );
  return counts.FAIL ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    await stopAll();
    process.exit(2);
  },
);
