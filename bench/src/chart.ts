/**
 * Draws bench/results/cpu-per-request.svg from a results file (lib/results.ts); scripts/bench does it
 * at the end of every run. By hand:
 *
 *   node bench/dist/chart.js [bench/results/results.json] [bench/results/cpu-per-request.svg]
 */
import { writeFileSync } from 'node:fs';
import { cpuChart } from './lib/chart.js';
import { readResults } from './lib/results.js';

const [input = 'bench/results/results.json', output = 'bench/results/cpu-per-request.svg'] =
  process.argv.slice(2);
writeFileSync(output, cpuChart(readResults(input)));
