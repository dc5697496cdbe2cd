/**
 * AS2: what our Redis storage costs. The same introspection load on the auth server with
 * oidc-provider's in-memory adapter (servers/auth-memory.ts) and on two processes of the real one
 * with our Redis adapter (the A/A twins), all three started together for AS2 (the main auth server has
 * served MEM-AS's 100,000 introspections, a history the fresh memory-adapter process would not share).
 *
 * The memory server gets its own tokens from real code exchanges on it; the two Redis servers share
 * one pool, minted the same way through the main server (same Redis). Redis's CPU counts on every
 * side: the rate limiter counts each introspection there whichever adapter stores the tokens.
 * Judged on the median of five rounds against the twins' spread (lib/aa.ts, `judgeAgainstAa`).
 */
import { join } from 'node:path';
import { freePort } from '#test-support/processes.js';
import type { Bench, Measure, Server } from '../lib/bench.js';
import type { LoadSpec } from '../lib/load.js';
import { aaOutcome, judgeAgainstAa, twinRounds } from '../lib/aa.js';
import { flowTokens } from '../lib/seed.js';
import { startAuthInstance, startNodeServer } from '../lib/stack.js';
import { AUTH_SERVER_NODE_FLAGS } from '@school/auth-server/dist/node-flags.js';
import { introspect, introspectLine } from './common.js';

/** Tokens per pool: well inside the memory adapter's LRU (1,000 recent entries). */
const POOL = 150;
const GOAL = 1.1;
const ROUNDS = 5;
const RUN_S = 3;
/** Both adapters keep getting faster for ~10 s of this load (V8 optimising the introspection path). */
const WARM_S = 12;

/** The auth server on oidc-provider's memory adapter, with the main server's environment and flags. */
async function memoryServer(bench: Bench): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { ...bench.authEnv, AUTH_PORT: String(port), BASE_URL: url };
  const script = join(bench.root, 'bench/dist/servers/auth-memory.js');
  return startNodeServer('auth-memory', script, [], env, bench.dir, url, '/healthz', [
    ...AUTH_SERVER_NODE_FLAGS,
  ]);
}

export const as2: Measure = {
  id: 'AS2',
  title: 'introspection CPU, Redis adapter vs memory adapter',
  goal: `≤ ${GOAL}× cpu/req + the A/A spread`,
  async run(bench) {
    const [memory, a, b] = await Promise.all([
      memoryServer(bench),
      startAuthInstance(bench, 'auth-as2-a'),
      startAuthInstance(bench, 'auth-as2-b'),
    ]);
    bench.log('AS2: signing in and exchanging codes on the memory server and the main server');
    // The memory server's pages redirect to its own BASE_URL; the Redis servers share the main one's.
    const [memTokens, redisTokens] = await Promise.all([
      flowTokens(bench, memory.url, POOL),
      flowTokens(bench, bench.auth.url, POOL),
    ]);
    // Every side must do the same work: every token active, with the same claims in the answer.
    const answers = await Promise.all([
      introspect(bench, memory.url, memTokens[0]!),
      introspect(bench, a.url, redisTokens[0]!),
      introspect(bench, b.url, redisTokens[0]!),
    ]);
    const shapes = answers.map((x) => `${String(x.active)} ${Object.keys(x).sort().join(',')}`);
    if (answers[0].active !== true || new Set(shapes).size !== 1) {
      throw new Error(`the servers answer differently: ${shapes.join(' / ')}`);
    }
    const memFile = bench.requests(
      'as2-memory',
      memTokens.map((t) => introspectLine(bench, t)),
    );
    const redisFile = bench.requests(
      'as2-redis',
      redisTokens.map((t) => introspectLine(bench, t)),
    );
    const spec = (name: string, server: Server, requestsFile: string): LoadSpec => ({
      name,
      url: server.url,
      requestsFile,
      processes: { node: server.pid, redis: bench.redis.pid },
      shown: bench.authShown(),
    });
    const rounds = await twinRounds({
      one: spec('memory adapter', memory, memFile),
      a: spec('Redis adapter a', a, redisFile),
      b: spec('Redis adapter b', b, redisFile),
      count: ROUNDS,
      seconds: RUN_S,
      warmSeconds: WARM_S,
    });
    await Promise.all([memory.stop(), a.stop(), b.stop()]);
    const j = judgeAgainstAa(rounds, (r) => r.cpuUs, 'case', GOAL);
    return aaOutcome(rounds, j, {
      one: 'memory adapter',
      twins: 'Redis adapter',
      metric: 'cpu/req of the memory adapter',
    });
  },
};
