/**
 * AS2: what our Redis storage costs. Introspection on the auth server with oidc-provider's memory
 * adapter (servers/auth-memory.ts) and on two fresh real ones (the twins); Redis counted on every side.
 */
import { join } from 'node:path';
import { AUTH_SERVER_NODE_FLAGS } from '@school/auth-server/dist/node-flags.js';
import type { Measure, Server } from '../lib/bench.js';
import { judgeAgainstAa } from '../lib/aa.js';
import { flowTokens } from '../lib/seed.js';
import { startNode } from '../lib/stack.js';
import { authSpec, introspect, introspectLine } from './auth-load.js';

/** Tokens per pool: well inside the memory adapter's LRU (1,000 recent entries). */
const POOL = 150;
const GOAL = 1.1;
/** Both adapters keep getting faster for ~10 s of this load (V8 optimising the introspection path). */
const WARM_S = 12;

export const as2: Measure = {
  id: 'AS2',
  title: 'introspection CPU, Redis adapter vs memory adapter',
  goal: `≤ ${GOAL}× cpu/req + the A/A spread`,
  async run(bench) {
    const flags = [...AUTH_SERVER_NODE_FLAGS];
    const auth = (name: string, script: string, ownOrigin: boolean) =>
      startNode(bench.dir, name, join(bench.root, script), {
        flags,
        // The memory server's pages redirect to its own origin; the twins share the main server's issuer.
        env: (port, url) => ({
          ...bench.authEnv,
          AUTH_PORT: String(port),
          ...(ownOrigin && { BASE_URL: url }),
        }),
      });
    const servers = await Promise.all([
      auth('auth-memory', 'bench/dist/servers/auth-memory.js', true),
      auth('auth-as2-a', 'packages/auth-server/dist/main.js', false),
      auth('auth-as2-b', 'packages/auth-server/dist/main.js', false),
    ]);
    const [memory, a, b] = servers;
    bench.log('AS2: signing in and exchanging codes on the memory server and the main server');
    const [memTokens, redisTokens] = await Promise.all([
      flowTokens(bench, memory.url, POOL),
      flowTokens(bench, bench.auth.url, POOL),
    ]);
    // Every side must do the same work: every token active, with the same claims in the answer.
    const first = (i: number) => (i ? redisTokens : memTokens)[0]!;
    const answers = await Promise.all(servers.map((s, i) => introspect(bench, s.url, first(i))));
    const shapes = answers.map((x) => `${String(x.active)} ${Object.keys(x).sort().join(',')}`);
    if (answers[0]!.active !== true || new Set(shapes).size !== 1) {
      throw new Error(`the servers answer differently: ${shapes.join(' / ')}`);
    }
    const line = (t: string) => introspectLine(bench, t);
    const file = (name: string, tokens: string[]) => bench.requests(name, tokens.map(line));
    const [memFile, redisFile] = [file('as2-memory', memTokens), file('as2-redis', redisTokens)];
    const spec = (name: string, s: Server, requestsFile: string) =>
      authSpec(bench, name, requestsFile, { url: s.url, processes: { node: s.pid, redis: bench.redis.pid } });
    try {
      return await judgeAgainstAa({
        one: spec('memory adapter', memory, memFile),
        a: spec('Redis adapter a', a, redisFile),
        b: spec('Redis adapter b', b, redisFile),
        warmSeconds: WARM_S,
        metric: 'cpuUs',
        twins: 'case',
        goal: GOAL,
        names: { one: 'memory adapter', twins: 'Redis adapter', metric: 'cpu/req of the memory adapter' },
      });
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  },
};
