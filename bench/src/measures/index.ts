/**
 * Every measure of scripts/bench, in the order they run. Add a measure: write a module exporting a
 * `Measure` (see ../lib/bench.ts) and list it here. BENCH_ONLY=AS1,DCR runs a subset.
 */
import type { Measure } from '../lib/bench.js';
import { as1 } from './as1-introspection.js';
import { as2 } from './as2-adapter.js';
import { as4, as5 } from './as4-refresh.js';
import { dcr } from './dcr.js';
import { lg } from './lg.js';
import { memAuth } from './mem-auth.js';
import { memApi, rs1, rs2, rs3, rv } from './resource-api.js';

// MEM-AS right after AS1: it finishes AS1's pool, so "after 100,000 distinct introspections" means
// exactly that (the run's end also logs the auth server's memory after every measure).
export const MEASURES: Measure[] = [as1, memAuth, as2, as4, as5, dcr, lg, rs1, rs2, rs3, rv, memApi];
