/**
 * Draws bench/results/cpu-per-request.svg from a results file; scripts/bench does it at the end of
 * every full run. By hand: node bench/dist/chart.js [results.json] [cpu-per-request.svg]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpuChart } from './lib/chart.js';
import type { Results } from './lib/bench.js';

const [input = 'bench/results/results.json', output = 'bench/results/cpu-per-request.svg'] =
  process.argv.slice(2);
writeFileSync(output, cpuChart(JSON.parse(readFileSync(input, 'utf8')) as Results));
