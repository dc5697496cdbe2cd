/** DCR: open dynamic client registration of a native public client with a loopback redirect URI. */
import { jsonLine, type Measure } from '../lib/bench.js';
import { sandwich } from '../lib/report.js';
import { registration } from '../lib/seed.js';
import { authSpec, perCoreOutcome } from './auth-load.js';

export const dcr: Measure = {
  id: 'DCR',
  title: 'dynamic client registration (public native client)',
  goal: '≥ 1,500/s per core',
  async run(bench) {
    const file = bench.requests('register', [jsonLine('/api/oauth/register', registration('bench agent'))]);
    const spec = authSpec(bench, 'registration', file);
    return perCoreOutcome(await sandwich({ durations: bench.durations, caseSpec: () => spec }), 1500);
  },
};
