/**
 * AS1: the introspection endpoint, as the resource API calls it, over a pool of 100,000 distinct
 * access tokens of a dynamically registered client (each request: the token, its grant and its
 * client looked up in storage). Per core = requests per CPU-second of the auth server and Redis.
 * Its goal is P1's (ours beside Hydra and Keycloak, same run); this line keeps the 100,000-token figures.
 */
import type { Bench, Measure } from '../lib/bench.js';
import { sandwich } from '../lib/report.js';
import { introspectionPool } from '../lib/seed.js';
import { bareRef, figuresOnlyOutcome, introspectLine } from './common.js';

/** Distinct tokens in the pool (MEM-AS continues through it until every one was introspected). */
export const POOL_SIZE = Number(process.env.BENCH_POOL ?? 100_000);

/** How far the pool has been used, and the last rate seen (shared by AS1 and MEM-AS). */
export const poolCursor = { next: 0, rps: 0 };

/** The pool's request file (minted once per bench run). */
export function introspectionPoolFile(bench: Bench): Promise<string> {
  return bench.memo('introspection-pool-file', async () => {
    bench.log(`minting ${POOL_SIZE.toLocaleString('en-US')} access tokens`);
    const tokens = await introspectionPool(bench, POOL_SIZE);
    return bench.requests(
      'introspection-pool',
      tokens.map((t) => introspectLine(bench, t)),
    );
  });
}

export const as1: Measure = {
  id: 'AS1',
  title: 'introspection (Redis adapter, 100k distinct tokens)',
  goal: 'none of its own: P1 (ratios to the peers)',
  async run(bench) {
    const file = await introspectionPoolFile(bench);
    const s = await sandwich({
      durations: bench.durations,
      ref: bareRef(bench),
      caseSpec: () => ({
        name: 'introspection',
        url: bench.auth.url,
        requestsFile: file,
        start: poolCursor.next,
        processes: bench.authProcesses(),
        shown: bench.authShown(),
      }),
      after: (r) => {
        poolCursor.next += r.requests;
        poolCursor.rps = r.rps;
      },
    });
    return figuresOnlyOutcome(s.figures, 'P1');
  },
};
