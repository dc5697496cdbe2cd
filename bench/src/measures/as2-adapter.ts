/**
 * AS2: what our Redis storage costs. The same introspection load against the same server built with
 * oidc-provider's in-memory adapter (bench/src/servers/auth-memory.ts) and with our Redis adapter,
 * interleaved: memory, Redis, memory, Redis, memory. Each server gets its own pool of access tokens
 * from real code exchanges of a dynamically registered client. Redis CPU counts on both sides (the
 * rate limiter counts every request in Redis whichever adapter stores the tokens).
 *
 * Both servers are processes started together for AS2 (the Redis one by `startAuthInstance`: the
 * bench's environment, its own port), not the bench's main auth server: that one has served AS1 and
 * MEM-AS's 100,000 introspections before, and a process with that history costs several per cent to
 * a third more per request than a fresh one running the same code (PERFORMANCE.md, "Two full runs on
 * a quiet machine"), which AS2 would have charged to the Redis adapter.
 */
import type { Measure } from '../lib/bench.js';
import { figuresText, sandwich, summaryOf } from '../lib/report.js';
import { startAuthInstance } from '../lib/stack.js';
import { flowTokens } from '../lib/seed.js';
import { introspect, introspectLine } from './common.js';

/** Tokens per pool: well inside the memory adapter's LRU (1,000 recent entries). */
const POOL = 150;
const GOAL = 1.1;

export const as2: Measure = {
  id: 'AS2',
  title: 'introspection CPU, Redis adapter vs memory adapter',
  goal: `≤ ${GOAL}× cpu/req`,
  async run(bench) {
    const [memory, redis] = await Promise.all([
      bench.authMemory(),
      bench.memo('as2-redis-server', () => startAuthInstance(bench, 'auth-as2')),
    ]);
    bench.log('AS2: signing in and exchanging codes on both servers');
    // Minted through the main server (the fresh one shares its Redis, and its pages redirect to the
    // main server's BASE_URL), introspected at the fresh one. Both at once: two servers, two browsers.
    const [memTokens, redisTokens] = await Promise.all([
      flowTokens(bench, memory.url, POOL),
      flowTokens(bench, bench.auth.url, POOL),
    ]);
    // Both sides must do the same work: every token active, with the same claims in the answer.
    const [memAnswer, redisAnswer] = await Promise.all([
      introspect(bench, memory.url, memTokens[0]!),
      introspect(bench, redis.url, redisTokens[0]!),
    ]);
    const shape = (a: Record<string, unknown>) => `${String(a.active)} ${Object.keys(a).sort().join(',')}`;
    if (memAnswer.active !== true || shape(memAnswer) !== shape(redisAnswer)) {
      throw new Error(`the two servers answer differently: ${shape(memAnswer)} / ${shape(redisAnswer)}`);
    }
    const memFile = bench.requests(
      'as2-memory',
      memTokens.map((t) => introspectLine(bench, t)),
    );
    const redisFile = bench.requests(
      'as2-redis',
      redisTokens.map((t) => introspectLine(bench, t)),
    );
    const s = await sandwich({
      durations: bench.durations,
      fullLengthRef: true,
      // Both servers keep getting faster for ~10 s of this load (V8 optimising the introspection
      // path): a short warm-up made the first case run, and so the worse-of-two, a JIT measurement.
      warmSeconds: Math.max(bench.durations.warm, 2 * bench.durations.run),
      ref: {
        name: 'memory adapter',
        url: memory.url,
        requestsFile: memFile,
        // Redis counts here too: the rate limiter uses it in front of either adapter.
        processes: { node: memory.pid, redis: bench.redis.pid },
        shown: bench.authShown(),
      },
      caseSpec: () => ({
        name: 'Redis adapter',
        url: redis.url,
        requestsFile: redisFile,
        processes: { node: redis.pid, redis: bench.redis.pid },
        shown: bench.authShown(),
      }),
    });
    const f = s.figures;
    const ok = f.cpuRatio <= GOAL && f.errors === 0 && s.refs.every((r) => r.errors === 0);
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: `${figuresText(f)}  | goal ≤ ${GOAL}× cpu/req of the memory adapter`,
      ...summaryOf(f),
    };
  },
};
