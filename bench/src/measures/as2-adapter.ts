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
 *
 * Judged on the median of five paired rounds (lib/report.ts, `pairedRounds`; BENCH_AS2_RUN seconds a
 * run, default 3), each side first in turn. BENCH_AS2_AA=1 (a diagnosis, not a goal) puts a second
 * Redis-adapter server in the reference's place, every token minted the same way for both: the ratio
 * it prints is what the method itself puts between two processes of the same code. The sandwich AS2
 * used before read 1.17× and 1.22× that way; paired rounds: PERFORMANCE.md, "Measuring a process against itself".
 */
import type { Measure } from '../lib/bench.js';
import { figuresText, pairedRounds, summaryOf } from '../lib/report.js';
import { startAuthInstance } from '../lib/stack.js';
import { flowTokens } from '../lib/seed.js';
import { introspect, introspectLine } from './common.js';

/** Tokens per pool: well inside the memory adapter's LRU (1,000 recent entries). */
const POOL = 150;
const GOAL = 1.1;
const ROUNDS = 5;
const RUN_S = Number(process.env.BENCH_AS2_RUN ?? 3);
const WARM_S = 12;

export const as2: Measure = {
  id: 'AS2',
  title: 'introspection CPU, Redis adapter vs memory adapter',
  goal: `≤ ${GOAL}× cpu/req`,
  async run(bench) {
    const aa = process.env.BENCH_AS2_AA === '1';
    const [memory, redis] = await Promise.all([
      aa ? startAuthInstance(bench, 'auth-as2-aa') : bench.authMemory(),
      bench.memo('as2-redis-server', () => startAuthInstance(bench, 'auth-as2')),
    ]);
    bench.log(`AS2: signing in and exchanging codes on both servers${aa ? ' (A/A: both Redis)' : ''}`);
    // Minted through the main server (the fresh one shares its Redis, and its pages redirect to the
    // main server's BASE_URL), introspected at the fresh one. Both at once: two servers, two browsers
    // (A/A: one after the other, through the main server's one browser).
    const [memTokens, redisTokens] = aa
      ? [await flowTokens(bench, bench.auth.url, POOL), await flowTokens(bench, bench.auth.url, POOL)]
      : await Promise.all([flowTokens(bench, memory.url, POOL), flowTokens(bench, bench.auth.url, POOL)]);
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
    const shown = bench.authShown();
    const s = await pairedRounds({
      count: ROUNDS,
      seconds: RUN_S,
      // Both servers keep getting faster for ~10 s of this load (V8 optimising the introspection
      // path): a short warm-up made the first rounds a JIT measurement.
      warmSeconds: Math.max(bench.durations.warm, WARM_S),
      ref: {
        name: aa ? 'the same Redis adapter (A/A)' : 'memory adapter',
        url: memory.url,
        requestsFile: memFile,
        // Redis counts here too: the rate limiter uses it in front of either adapter.
        processes: { node: memory.pid, redis: bench.redis.pid },
        shown,
      },
      caseSpec: {
        name: 'Redis adapter',
        url: redis.url,
        requestsFile: redisFile,
        processes: { node: redis.pid, redis: bench.redis.pid },
        shown,
      },
    });
    const f = s.figures;
    const ok = f.cpuRatio <= GOAL && f.errors === 0;
    const perRound = s.rounds.map((r) => (r.case.cpuUs / r.ref.cpuUs).toFixed(2)).join(', ');
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: `${figuresText(f)}  | median of ${ROUNDS} paired rounds (${perRound})  | goal ≤ ${GOAL}× cpu/req of the memory adapter`,
      ...summaryOf(f),
    };
  },
};
