/**
 * `node dist/docs/areas-table.js`: prints the README's areas table (from the registry).
 * `--env` prints the environment table instead; `--write <README.md>` rewrites both sections of a
 * README in place.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { REGISTRY } from '../areas/index.js';
import { areasTable, envTable, withSection } from './tables.js';

const args = process.argv.slice(2);
if (args[0] === '--write' && args[1]) {
  let text = readFileSync(args[1], 'utf8');
  text = withSection(text, 'areas-table', areasTable(REGISTRY));
  text = withSection(text, 'env-table', envTable());
  writeFileSync(args[1], text);
} else {
  process.stdout.write(`${args[0] === '--env' ? envTable() : areasTable(REGISTRY)}\n`);
}
