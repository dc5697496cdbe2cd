/**
 * DCR: open dynamic client registration of a native public client with a loopback redirect URI, judged
 * against the same registration on the memory-adapter server, loaded either side of each run.
 */
import { jsonLine, type Measure } from '../lib/bench.js';
import { sandwich } from '../lib/report.js';
import { registration } from '../lib/seed.js';
import { againstReferenceOutcome, authSpec, memoryReference } from './auth-load.js';

/** CPU per registration at most this many times the memory adapter's, same run (PERFORMANCE.md). */
const GOAL = 1.5;

export const dcr: Measure = {
  id: 'DCR',
  title: 'dynamic client registration (public native client)',
  goal: `≤ ${GOAL}× the memory adapter's cpu/req`,
  async run(bench) {
    const memory = await memoryReference(bench);
    const file = bench.requests('register', [jsonLine('/api/oauth/register', registration('bench agent'))]);
    const spec = authSpec(bench, 'registration', file);
    const ref = authSpec(bench, 'registration (memory adapter)', file, {
      url: memory.url,
      processes: { node: memory.pid, redis: bench.redis.pid },
    });
    const s = await sandwich({ durations: bench.durations, caseSpec: () => spec, ref });
    return againstReferenceOutcome(s, 'the memory adapter', GOAL);
  },
};
