/**
 * Every measure, in the order they run. MEM-AS first (the whole pool at the auth server); RS2, RS3 and
 * MEM-API walk the pool at the API in turn; the peers start beside MEM-API, which judges no CPU.
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
