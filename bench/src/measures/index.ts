/**
 * Every measure of scripts/bench, in the order they run (BENCH_ONLY=AS2,DCR runs a subset). MEM-AS
 * comes first: it introspects every token of the 100,000-token pool once at the auth server. The API
 * measures share one walk through that pool: RS2's and RS3's misses, then MEM-API the rest. The peers
 * of P1–P3 start while MEM-API runs, which judges memory, not CPU (start-up takes minutes on a busy
 * machine), so no CPU-judged measure runs beside their start.
 */
import type { Measure } from '../lib/bench.js';
import { p1, p2, p3 } from '../peers/peer-measures.js';
import { peerSet } from '../peers/peer-set.js';
import { as2 } from './as2-adapter.js';
import { as5 } from './as5-refresh.js';
import { dcr } from './dcr.js';
import { lg } from './lg.js';
import { memApi, memAuth } from './memory.js';
import { met } from './met-metrics.js';
import { rs1 } from './rs1-read.js';
import { rs2 } from './rs2-miss.js';
import { rs3 } from './rs3-hop.js';
import { rv } from './rv-revocation.js';

export const MEASURES: Measure[] = [
  memAuth,
  as2,
  as5,
  dcr,
  lg,
  rs1,
  met,
  rs2,
  rs3,
  rv,
  { ...memApi, overlap: (bench) => void peerSet(bench).catch(() => undefined) },
  p1,
  p2,
  p3,
];
