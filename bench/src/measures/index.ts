/**
 * Every measure of scripts/bench, in the order they run. Add a measure: write a module exporting a
 * `Measure` (see ../lib/bench.ts) and list it here. BENCH_ONLY=AS1,DCR runs a subset; an opt-in
 * measure (DI) runs only when BENCH_ONLY names it.
 */
import type { Measure } from '../lib/bench.js';
import { as1 } from './as1-introspection.js';
import { as2 } from './as2-adapter.js';
import { as4, as5 } from './as4-refresh.js';
import { dcr } from './dcr.js';
import { lg } from './lg.js';
import { memAuth } from './mem-auth.js';
import { memApi } from './mem-api.js';
import { met } from './met-metrics.js';
import { p1, p2, p3, p4 } from '../peers/peer-measures.js';
import { peerSet } from '../peers/peer-set.js';
import { rs1 } from './rs1-read.js';
import { rs2 } from './rs2-miss.js';
import { rs3 } from './rs3-hop.js';
import { rv } from './rv-revocation.js';
import { scale } from './scale.js';
import { di } from './di-direct-introspection.js';

// MEM-AS right after AS1: it finishes AS1's pool, so "after 100,000 distinct introspections" means
// exactly that (the run's end also logs the auth server's memory after every measure). The resource
// API's measures share one walk through that pool (every token new to the API): RS2's and RS3's
// misses first, then MEM-API presents the rest. SCALE, before it, adds a second process of each
// service behind the edge (RV's second API instance). P1–P4 (ours beside Ory Hydra and Keycloak, and
// on Node 20) come last; their servers start while MEM-API runs, which judges memory, not CPU
// (start-up takes minutes on a busy machine, Keycloak's JVM most), and no CPU-judged measure runs
// beside them.
export const MEASURES: Measure[] = [
  as1,
  memAuth,
  as2,
  as4,
  as5,
  dcr,
  lg,
  rs1,
  met,
  rs2,
  rs3,
  rv,
  scale,
  { ...memApi, overlap: (bench) => void peerSet(bench).catch(() => undefined) },
  p1,
  p2,
  p3,
  p4,
  di,
];
