/**
 * `node dist/docs/config-table-cli.js`: prints the auth server's configuration table; `--write
 * <file>…` rewrites each file given: a Markdown file's table section (docs/configuration.md), or a
 * `.env.example` file whole (config/auth-server.env.example).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withSection } from '@school/shared';
import { configExample, configTable, TABLE_SECTION } from './config-docs.js';

const args = process.argv.slice(2);
if (args[0] === '--write' && args.length > 1) {
  for (const file of args.slice(1))
    writeFileSync(
      file,
      file.endsWith('.env.example')
        ? configExample()
        : withSection(readFileSync(file, 'utf8'), TABLE_SECTION, configTable()),
    );
} else process.stdout.write(`${configTable()}\n`);
