/**
 * The results file a bench run writes (bench/results/results.json): every measure's status, the
 * figure it is judged on and its servers' figures. lib/chart.ts draws P1–P3 from it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Outcome } from './bench.js';

/** One measure as recorded. */
export interface MeasureResult extends Omit<Outcome, 'text'> {
  id: string;
  title: string;
  goal: string;
}

export interface Results {
  /** When the run ended, e.g. "2026-11-27T06:40Z". */
  date: string;
  /** Where the figures come from when not from a run as it wrote them. */
  source?: string;
  seconds?: number;
  /** The bare node:http reference at the run's start: the machine's speed beside the figures. */
  bareHttp?: { rps: number; cpuUs: number };
  measures: MeasureResult[];
}

export function writeResults(file: string, results: Results): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

export function readResults(file: string): Results {
  return JSON.parse(readFileSync(file, 'utf8')) as Results;
}
