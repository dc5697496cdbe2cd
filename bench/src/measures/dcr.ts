/**
 * DCR: open dynamic client registration (RFC 7591) of a native public client with a loopback
 * redirect URI, as CLIs and agents send it. Each request validates the metadata, applies the
 * loopback policy and stores a new client in Redis.
 */
import type { Measure } from '../lib/bench.js';
import { jsonLine } from '../lib/bench.js';
import { sandwich } from '../lib/report.js';
import { registration } from '../lib/seed.js';
import { perCoreOutcome } from './common.js';

export const dcr: Measure = {
  id: 'DCR',
  title: 'dynamic client registration (public native client)',
  goal: '≥ 1,500/s per core',
  async run(bench) {
    const file = bench.requests('register', [
      jsonLine('/api/oauth/register', registration('bench agent', false)),
    ]);
    const s = await sandwich({
      durations: bench.durations,
      caseSpec: () => ({
        name: 'registration',
        url: bench.auth.url,
        requestsFile: file,
        processes: bench.authProcesses(),
        shown: bench.authShown(),
      }),
    });
    return perCoreOutcome(s.figures, 1500);
  },
};
