/**
 * `node dist/docs/areas-table.js`: prints the areas table (from the registry); `--env` prints the
 * environment table instead. `--write <file>…` rewrites, in each Markdown file given, whichever of
 * its sections it holds (the areas and the scopes' data categories, docs/areas.md; the environment,
 * docs/configuration.md), or a `.env.example` file whole (config/resource-api.env.example;
 * `scripts/docs-tables`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { REGISTRY } from '../areas/index.js';
import { areasTable, categoriesTable, envFile, envTable, section, withSection } from './tables.js';

const args = process.argv.slice(2);
if (args[0] === '--write' && args.length > 1) {
  const tables = {
    'areas-table': () => areasTable(REGISTRY),
    'categories-table': categoriesTable,
    'env-table': envTable,
  };
  for (const file of args.slice(1)) {
    if (file.endsWith('.env.example')) {
      writeFileSync(file, envFile());
      continue;
    }
    let text = readFileSync(file, 'utf8');
    const held = Object.entries(tables).filter(([name]) => section(text, name) !== undefined);
    if (held.length === 0)
      throw new Error(`${file} has no areas-table, categories-table or env-table section`);
    for (const [name, table] of held) text = withSection(text, name, table());
    writeFileSync(file, text);
  }
} else {
  process.stdout.write(`${args[0] === '--env' ? envTable() : areasTable(REGISTRY)}\n`);
}
