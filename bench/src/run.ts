/**
 * scripts/bench's driver. Starts the stack (lib/stack.ts), runs every measure of measures/index.ts,
 * prints one line per measure on stdout and a final summary line, and exits 1 when a goal is missed.
 * Progress goes to stderr.
 *
 * Environment: BENCH_ONLY=AS1,AS2 (subset), BENCH_RUN / BENCH_REF / BENCH_WARM (seconds per case,
 * reference and warm-up run; default 8, 4, 3), BENCH_POOL (introspection pool size, default 100000),
 * BENCH_PROFILE=1 (CPU profiles of the auth servers and the resource API into .data/bench-profiles/),
 * BENCH_LOG_LEVEL (the LOG_LEVEL of the auth server and the resource API, default info as in
 * production), BENCH_NODE_FLAGS (extra Node flags for the servers), BENCH_MONGODB_URI (an external
 * MongoDB). Run with --experimental-websocket (Node 20) for MEM's inspector connection; scripts/bench
 * does.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bootstrap } from '@school/auth-server/dist/bootstrap.js';
import { loadConfig } from '@school/auth-server/dist/config.js';
import { createLogger } from '@school/auth-server/dist/logger.js';
import { freePort, killAllNow, stopAll } from '#test-support/processes.js';
import {
  writeRequests,
  type Bench,
  type Measure,
  type Outcome,
  type ResourceApiServer,
  type Server,
  type Status,
} from './lib/bench.js';
import { inspectPortFlag, memoryAfterGc } from './lib/inspector.js';
import { rssBytes } from './lib/proc.js';
import {
  authEnvironment,
  authServerFlags,
  freshDir,
  startMongo,
  startNodeServer,
  startRedis,
} from './lib/stack.js';
import { summaryTable } from './lib/summary.js';
import { MEASURES } from './measures/index.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, '../..');
const dir = join(root, '.data', 'bench');
const started = Date.now();
const loadAtStart = loadavg();
const log = (m: string) =>
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${m}\n`);
const out = (line: string) => process.stdout.write(`${line}\n`);

/**
 * The resource API's environment: production mode, in front of the bench's auth server (introspecting
 * as its static client), Redis (the revocation feed, same key prefix) and MongoDB (the auth server's
 * database, as in production: the account area reads its accounts). BASE_URL is the instance's own
 * origin: the bench's tokens carry no `aud` (no resource indicator), and the API accepts an unbound
 * token everywhere its scopes are. The API has no rate limits of its own to raise.
 */
function apiEnvironment(
  authEnv: Record<string, string>,
  authUrl: string,
  redisUrl: string,
  mongoUri: string,
  port: number,
): Record<string, string> {
  return {
    NODE_ENV: 'production',
    BASE_URL: `http://127.0.0.1:${port}`,
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    TRUST_PROXY: 'false',
    AUTH_INTERNAL_URL: authUrl,
    INTROSPECTION_CLIENT_ID: authEnv.INTROSPECTION_CLIENT_ID!,
    INTROSPECTION_CLIENT_SECRET: authEnv.INTROSPECTION_CLIENT_SECRET!,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: authEnv.REDIS_KEY_PREFIX!,
    MONGODB_URI: mongoUri,
    LOG_LEVEL: authEnv.LOG_LEVEL!,
  };
}

process.on('SIGINT', () => {
  killAllNow();
  process.exit(130);
});
process.on('exit', killAllNow);

async function main(): Promise<number> {
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim().toUpperCase());
  const measures = MEASURES.filter((m) => (only ? only.includes(m.id) : !m.optIn));
  const durations = {
    run: Number(process.env.BENCH_RUN ?? 8),
    ref: Number(process.env.BENCH_REF ?? 4),
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
    [...authServerFlags(), inspectPortFlag(authInspectPort)],
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

  const memos = new Map<string, Promise<unknown>>();
  let memory: Promise<Server> | undefined;
  let seeded: Promise<unknown> | undefined;
  const apis = new Map<number, Promise<ResourceApiServer>>();
  let bareHop: Promise<{ api: ResourceApiServer; introspection: Server }> | undefined;
  const startApi = async (
    name: string,
    authUrl = auth.url,
    extra: Record<string, string> = {},
  ): Promise<ResourceApiServer> => {
    const [port, inspectPort] = [await freePort(), await freePort()];
    const env = { ...apiEnvironment(authEnv, authUrl, redis.url, mongo.uri, port), ...extra };
    // The demo school (`npm run seed` of the resource API), so its lists answer real JSON.
    seeded ??= promisify(execFile)(process.execPath, [join(root, 'packages/resource-api/dist/seed.js')], {
      env: { ...process.env, ...env },
    }).then(({ stderr }) => log(stderr.trim()));
    await seeded;
    const server = await startNodeServer(
      name,
      join(root, 'packages/resource-api/dist/main.js'),
      [],
      env,
      dir,
      env.BASE_URL!,
      '/healthz',
      [inspectPortFlag(inspectPort)],
    );
    return { ...server, inspectPort, env };
  };
  const bench: Bench = {
    root,
    dir,
    durations,
    redis,
    mongo: mongo.server,
    mongoUri: mongo.uri,
    authEnv,
    auth,
    authInspectPort,
    bare,
    account,
    introspector: {
      clientId: authEnv.INTROSPECTION_CLIENT_ID,
      clientSecret: authEnv.INTROSPECTION_CLIENT_SECRET,
    },
    runtime,
    authProcesses: () => ({ node: auth.pid, redis: redis.pid }),
    authShown: () => ({ mongo: mongo.server?.pid }),
    authMemory() {
      memory ??= freePort().then((port) =>
        startNodeServer(
          'auth-memory',
          join(root, 'bench/dist/servers/auth-memory.js'),
          [],
          { ...authEnv, AUTH_PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` },
          dir,
          `http://127.0.0.1:${port}`,
          '/healthz',
          authServerFlags(), // as the Redis side runs: AS2 compares the adapters, not the flags
        ),
      );
      return memory;
    },
    resourceApi(instance = 0) {
      let api = apis.get(instance);
      if (!api) {
        apis.set(
          instance,
          (api = startApi(instance === 0 ? 'resource-api' : `resource-api-${instance + 1}`)),
        );
      }
      return api;
    },
    bareHopApi() {
      bareHop ??= freePort().then(async (port) => {
        const introspection = await startNodeServer(
          'bare-introspection',
          join(root, 'bench/dist/servers/bare-introspection.js'),
          [String(port)],
          { REDIS_URL: redis.url, REDIS_KEY_PREFIX: authEnv.REDIS_KEY_PREFIX! },
          dir,
          `http://127.0.0.1:${port}`,
          '/',
        );
        return { api: await startApi('resource-api-bare-hop', introspection.url), introspection };
      });
      return bareHop;
    },
    resourceApiWith(name, env) {
      return bench.memo(`resource-api-with:${name}`, () => startApi(name, auth.url, env));
    },
    memo<T>(key: string, fn: () => Promise<T>): Promise<T> {
      if (!memos.has(key)) memos.set(key, fn());
      return memos.get(key) as Promise<T>;
    },
    requests: (name, lines) => writeRequests(dir, name, lines),
    log,
  };

  const counts: Record<Status, number> = { PASS: 0, FAIL: 0, TODO: 0, SKIP: 0 };
  const failed: string[] = [];
  const results: { measure: Measure; outcome: Outcome }[] = [];
  const width = Math.max(...measures.map((m) => m.title.length));
  for (const m of measures) {
    log(`${m.id}: ${m.title}`);
    m.overlap?.(bench);
    let outcome: Outcome;
    try {
      outcome = await m.run(bench);
    } catch (err) {
      outcome = { status: 'FAIL', text: `error: ${err instanceof Error ? err.message : String(err)}` };
    }
    const { status, text } = outcome;
    results.push({ measure: m, outcome });
    log(`${m.id}: ${status}; auth server rss ${(rssBytes(auth.pid) / 2 ** 20).toFixed(0)} MB`);
    counts[status]++;
    if (status === 'FAIL') failed.push(m.id);
    out(`${m.id.padEnd(7)} ${m.title.padEnd(width)}  ${text}  ${status}`);
  }

  try {
    const m = await memoryAfterGc(auth.pid, authInspectPort);
    log(
      `auth server after every measure: rss ${(m.rss / 2 ** 20).toFixed(0)} MB after a full GC ` +
        `(heap used ${(m.heapUsed / 2 ** 20).toFixed(0)} MB)`,
    );
  } catch {
    // informational only
  }
  await runtime.close();
  await stopAll();
  if (process.env.BENCH_PROFILE === '1') {
    log(`CPU profiles in .data/bench-profiles/: the auth server's file names carry pid ${auth.pid}`);
  }
  const secs = Math.round((Date.now() - started) / 1000);
  out('');
  for (const line of summaryTable(results)) out(line);
  out('');
  const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(', ');
  out(
    `bench: ${counts.PASS} passed, ${counts.FAIL} failed${failed.length ? ` (${failed.join(', ')})` : ''}, ` +
      `${counts.TODO} todo, ${counts.SKIP} skipped, in ${secs} s; ${new Date().toISOString().slice(0, 16)}Z, ` +
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
