/**
 * `node dist/docs/config-table-cli.js`: prints the auth server's configuration table;
 * `--write <file>` rewrites its section of that Markdown file in place (docs/configuration.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { configTable, withSection } from './config-table.js';

const args = process.argv.slice(2);
if (args[0] === '--write' && args[1])
  writeFileSync(args[1], withSection(readFileSync(args[1], 'utf8'), configTable()));
else process.stdout.write(`${configTable()}\n`);
