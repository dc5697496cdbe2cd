/**
 * DCR: open dynamic client registration of a native public client with a loopback redirect URI, judged
 * against the same registration on the memory-adapter server, loaded either side of each run.
 */
import { jsonLine, type Measure } from '../lib/bench.js';
import { registration } from '../lib/seed.js';
import { againstMemoryAdapter } from './auth-load.js';

/** CPU per registration at most this many times the memory adapter's, same run (PERFORMANCE.md). */
const GOAL = 1.5;

export const dcr: Measure = againstMemoryAdapter(
  {
    id: 'DCR',
    title: 'dynamic client registration (public native client)',
    name: 'registration',
    goal: GOAL,
  },
  (bench) =>
    Promise.resolve({
      file: bench.requests('register', [jsonLine('/api/oauth/register', registration('bench agent'))]),
    }),
);
