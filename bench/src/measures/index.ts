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
import { di } from './di-ab.js';
import { lg } from './lg.js';
import { memApi, memAuth } from './memory.js';
import { met } from './met-metrics.js';
import { rs1 } from './rs1-read.js';
import { rs2 } from './rs2-miss.js';
import { rs3 } from './rs3-hop.js';
import { rv } from './rv-revocation.js';

/** MEM-API, with the peers' start-up in the background. */
const memApiBesidePeers: Measure = {
  ...memApi,
  run: (bench) => {
    void peerSet(bench).catch(() => undefined); // a failure surfaces in P1, which awaits the same start
    return memApi.run(bench);
  },
};

export const MEASURES = [memAuth, as2, as5, dcr, lg, rs1, met, rs2, rs3, rv, memApiBesidePeers, p1, p2, p3];

/** Run only when named in BENCH_ONLY: experiments that judge no goal. */
export const EXPERIMENTS = [di];
