/**
 * LG: login form submissions with the production argon2id parameters. Each needs its own interaction,
 * so before each run a batch is prepared as a browser gets there (authorization request, cookies, the
 * login page's CSRF token; not counted), then wrk submits each form once, 8 at a time. Also checks the
 * stored hash's parameters against OWASP's argon2id minimum.
 */
import type { OAuthClient } from '#test-support/oauth-flow.js';
import type { Bench, Measure } from '../lib/bench.js';
import { formLine } from '../lib/bench.js';
import { runLoad, type LoadSpec } from '../lib/load.js';
import { sandwich } from '../lib/report.js';
import { prepareLogin, register, SCOPE } from '../lib/seed.js';
import { perCoreOutcome } from './common.js';

const CONNECTIONS = 8;

/** OWASP Password Storage Cheat Sheet, argon2id: equivalent (memory KiB, iterations) settings, p=1. */
const OWASP_ARGON2ID = [
  { m: 47104, t: 1 },
  { m: 19456, t: 2 },
  { m: 12288, t: 3 },
  { m: 9216, t: 4 },
  { m: 7168, t: 5 },
];

/** Checks a PHC string like `$argon2id$v=19$m=19456,p=1,t=2$…` against OWASP's minimum. */
export function owaspCheck(phc: string): string {
  const m = /^\$(argon2(?:id|i|d))\$v=\d+\$([a-z]=\d+(?:,[a-z]=\d+)*)\$/.exec(phc);
  if (!m) return 'FAILED: the stored hash is not an argon2 PHC string';
  const alg = m[1]!;
  const p = Object.fromEntries(m[2]!.split(',').map((kv) => [kv[0]!, Number(kv.slice(2))]));
  const [mem, t, par] = [p.m ?? 0, p.t ?? 0, p.p ?? 0];
  const params = `${alg} m=${mem} KiB t=${t} p=${par}`;
  const ok = alg === 'argon2id' && par >= 1 && OWASP_ARGON2ID.some((o) => mem >= o.m && t >= o.t);
  return ok ? `${params} ≥ OWASP` : `FAILED: ${params} is below OWASP's argon2id minimum`;
}

async function prepare(bench: Bench, client: OAuthClient, n: number): Promise<string> {
  const lines: string[] = [];
  const worker = async () => {
    while (lines.length < n) {
      const p = await prepareLogin(bench.auth.url, client, SCOPE);
      lines.push(
        formLine(p.path, { csrf: p.csrf, email: bench.account.email, password: bench.account.password }, [
          `Cookie: ${p.cookie}`,
          `Origin: ${bench.auth.url}`,
        ]),
      );
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return bench.requests(`logins-${Date.now()}`, lines.slice(0, n));
}

export const lg: Measure = {
  id: 'LG',
  title: 'login form submissions (argon2id)',
  goal: '≥ 15/s per core, hash ≥ OWASP minimum',
  async run(bench) {
    const db = bench.runtime.mongo.db;
    const stored = await db?.collection('accounts').findOne({ email: bench.account.email });
    const hashCheck = owaspCheck(String(stored?.passwordHash ?? ''));
    const client = await register(bench.auth.url, 'bench login app', false);
    const spec = (file: string): LoadSpec => ({
      name: 'login',
      url: bench.auth.url,
      requestsFile: file,
      once: true,
      connections: CONNECTIONS,
      processes: bench.authProcesses(),
      shown: bench.authShown(),
    });
    // Warm up and size each run's batch of single-use interactions from the warm-up's rate (wrk
    // runs for its full duration even when a batch is used up, so requests / duration is the rate
    // unless the batch ran out, which only makes the next batches bigger).
    bench.log('LG: warming up');
    const warmBatch = 150;
    const warm = await runLoad(spec(await prepare(bench, client, warmBatch)), bench.durations.warm);
    const rate = (warm.requests >= warmBatch - CONNECTIONS ? 2 : 1) * (warm.requests / bench.durations.warm);
    const batch = Math.ceil(Math.max(rate, 5) * bench.durations.run * 2) + 30;
    let exhausted = false;
    const s = await sandwich({
      durations: bench.durations,
      noWarm: true,
      caseSpec: async () => {
        bench.log(`LG: preparing ${batch} interactions`);
        return spec(await prepare(bench, client, batch));
      },
      after: (r) => {
        if (r.requests >= batch - CONNECTIONS) exhausted = true;
      },
    });
    const checks = [hashCheck];
    // CPU per submission stays exact (the server idles once the batch is used up); req/s does not.
    if (exhausted) checks.push('a batch ran out: req/s is a lower bound');
    return perCoreOutcome(s.figures, 15, checks);
  },
};
