/**
 * `school-auth grants export --format csv|json`: the Access register (account-pages/access-register.ts)
 * on stdout, one row per app an account allowed, as the admins' page shows it: CSV for a spreadsheet
 * (account-pages/register-csv.ts), or JSON (an array, one object per row in the commands' style,
 * account-pages/register-json.ts, what a terminal would act on escaped). It streams, an account at a
 * time, so a large register costs no more memory than its largest account.
 */
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { terminalJson } from '@school/shared';
import { Option, type Command } from 'commander';
import { accessRegister } from '../account-pages/access-register.js';
import { csvCells, registerCsv } from '../account-pages/register-csv.js';
import { registerJson } from '../account-pages/register-json.js';
import { withRuntime } from './runtime.js';

/** The formats the export writes. */
export const EXPORT_FORMATS = ['csv', 'json'] as const;

/** Writes `text` to stdout, waiting when the pipe is full. */
async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

/** Adds `grants` and its subcommands to the program. */
export function registerGrantsCommands(program: Command): void {
  const grants = program.command('grants').description('the Access register: who has access to what');

  grants
    .command('export')
    .description('every live grant: app, account, role, who approved, scopes by category, dates, last use')
    .addOption(
      new Option('--format <format>', 'csv (for a spreadsheet) or json')
        .choices(EXPORT_FORMATS)
        .makeOptionMandatory(),
    )
    .action((o: { format: (typeof EXPORT_FORMATS)[number] }) =>
      withRuntime(async (runtime, config) => {
        const deps = { ...runtime, prefix: config.REDIS_KEY_PREFIX };
        if (o.format === 'json') {
          let first = true;
          await write('[');
          for await (const { rows } of accessRegister(deps))
            for (const row of rows) {
              await write(`${first ? '\n' : ',\n'}${terminalJson(registerJson(row))}`);
              first = false;
            }
          await write(first ? ']\n' : '\n]\n');
          return;
        }
        const csv = registerCsv();
        csv.pipe(process.stdout, { end: false });
        for await (const { rows } of accessRegister(deps))
          for (const row of rows) if (!csv.write(csvCells(row))) await once(csv, 'drain');
        csv.end();
        await finished(csv);
      }),
    );
}
