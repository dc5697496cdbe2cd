/**
 * The `school-auth` command line (commander): every command and option, each with a line of help
 * (`school-auth --help`, `school-auth <command> --help`, `school-auth <command> <sub> --help`).
 * A usage error (an unknown command or option, a missing or malformed value) is one sentence on
 * stderr, a pointer to the help of the command it concerns, and exit code 2.
 */
import { terminalSafe } from '@school/shared';
import { Command, Option } from 'commander';
import { AUDIT_EVENT_TYPES, type AuditEventType } from '../audit/audit-log.js';
import { MAX_ACTIVITY_PAGE } from '../audit/audit-page.js';
import { registerAccountsCommands } from './accounts-command.js';
import { runActivity } from './activity-command.js';
import { registerAppsCommands } from './apps-command.js';
import { registerClientsCommands } from './clients-commands.js';
import { registerGrantsCommands } from './grants-command.js';
import { registerKeysCommands } from './keys-command.js';
import { registerRolesCommands } from './roles-command.js';
import { seedAdmin } from './seed-admin.js';
import { loadSeedConfig } from './seed-config.js';
import { eventJson, jsonLine, print } from './output.js';
import { dateValue, wholeNumber, withRuntime, withStorage } from './runtime.js';

/** Writes commander's own output, what a terminal would act on escaped, line by line. */
const escaped = (write: (text: string) => void) => (text: string) =>
  write(text.split('\n').map(terminalSafe).join('\n'));

/** Commander's `error: …` for a usage error, as every failure is said: `school-auth: …`, a full stop. */
export function usageSentence(text: string): string {
  const words = text.trim().replace(/^error:\s*/, '');
  return `school-auth: ${/[.!?]$/.test(words) ? words : `${words}.`}\n`;
}

function registerAuditCommands(program: Command): void {
  program
    .command('audit')
    .description('the newest security events, as JSON lines')
    .addOption(new Option('--type <type>', 'only events of this type').choices(AUDIT_EVENT_TYPES))
    .option('--client <client_id>', 'only events about this client')
    .option('--account <account_id>', 'only events about this account')
    .option('--since <date>', 'only events at or after this date (e.g. 2026-11-01)', dateValue)
    .option('--until <date>', 'only events before this date', dateValue)
    .option('--limit <n>', 'at most this many events (default 100)', wholeNumber(1, 1000))
    .action(
      (o: {
        type?: AuditEventType;
        client?: string;
        account?: string;
        since?: Date;
        until?: Date;
        limit?: number;
      }) =>
        withStorage(async (storage) => {
          const events = await storage.audit.query({
            type: o.type,
            clientId: o.client,
            accountId: o.account,
            since: o.since,
            until: o.until,
            limit: o.limit,
          });
          for (const e of events) console.log(jsonLine(eventJson(e)));
        }),
    );

  program
    .command('activity')
    .description('the audit log as the Activity page shows it, a line per event, newest first')
    .addOption(new Option('--event <type>', 'only events of this type').choices(AUDIT_EVENT_TYPES))
    .option('--client <client_id>', 'only events about this app')
    .option('--account <email or id>', 'only events about this account')
    .option('--limit <n>', `at most this many events (default 50)`, wholeNumber(1, MAX_ACTIVITY_PAGE))
    .option('--before <cursor>', 'the page after this cursor (printed on stderr by the page before)')
    .option('--json', 'one JSON object per line')
    .action(
      (o: {
        event?: string;
        client?: string;
        account?: string;
        limit?: number;
        before?: string;
        json?: boolean;
      }) =>
        withStorage(async ({ audit, accounts, redis }, config) => {
          const deps = { audit, accounts, redis, prefix: config.REDIS_KEY_PREFIX };
          const next = await runActivity(deps, {
            ...o,
            limit: o.limit === undefined ? undefined : String(o.limit),
          });
          if (next) console.error(terminalSafe(`older events: --before ${next}`));
        }),
    );
}

/** Sets the usage-error pointer of `command` and of every command under it. */
function pointToHelp(command: Command, path: string[] = []): void {
  const name = [...path, command.name()];
  command.showHelpAfterError(`(${name.join(' ')} --help lists what it takes)`);
  for (const sub of command.commands) pointToHelp(sub, name);
}

/** Where the program writes its help and usage errors (the terminal unless said). */
export interface ProgramOutput {
  writeOut(text: string): void;
  writeErr(text: string): void;
}

const terminal: ProgramOutput = {
  writeOut: (t) => process.stdout.write(t),
  writeErr: (t) => process.stderr.write(t),
};

/** The whole command line. */
export function buildProgram(output: ProgramOutput = terminal): Command {
  const program = new Command('school-auth')
    .description(
      'Operate the school’s auth server: accounts, roles, approvals, clients, apps, signing keys and the audit log.\n' +
        'Reads the same environment as the server (REDIS_URL, MONGODB_URI, …) and prints JSON unless said.',
    )
    .exitOverride()
    .configureOutput({
      writeOut: escaped((t) => output.writeOut(t)),
      writeErr: escaped((t) => output.writeErr(t)),
      outputError: (text, write) => write(usageSentence(text)),
    });

  program
    .command('seed-admin')
    .description(
      'create or update the admin from SEED_ADMIN_EMAIL / SEED_ADMIN_PASSWORD (without a password, ' +
        'outside production, a new admin gets a generated one, printed once)',
    )
    .action(async () => {
      const seed = loadSeedConfig(); // checked before anything is opened
      await withRuntime(async (runtime) => print(await seedAdmin(runtime.accounts, seed)));
    });

  registerClientsCommands(program);
  registerAppsCommands(program);
  registerGrantsCommands(program);
  registerAccountsCommands(program);
  registerRolesCommands(program);
  registerKeysCommands(program);
  registerAuditCommands(program);
  pointToHelp(program);
  return program;
}
