#!/usr/bin/env node
/**
 * The operator command, `school-auth` (run as `npm run auth -- <command>` from the repository):
 *
 *   seed-admin                                   create or update the admin from SEED_ADMIN_EMAIL/PASSWORD
 *                                                (no password outside production: one is generated
 *                                                for a new admin and printed once; cli/seed-admin.ts)
 *   clients create-integration --name N --redirect-uri https://… [--redirect-uri …]
 *   clients create-introspector --name N         a service allowed to introspect every token
 *   clients list [--kind K] [--never-used] [--idle-days N] [--json]
 *                                                every stored client, as All clients shows them
 *                                                (cli/clients-list-command.ts)
 *   clients delete <client_id>                   end a stored client's grants and tokens, then delete it
 *   clients sweep                                remove unused and idle self-registered clients now
 *                                                (CLIENT_UNUSED_TTL, CLIENT_IDLE_TTL; provider/client-sweep.ts)
 *   clients allow-cimd <client_id URL>           let a Client ID Metadata Document client use the https
 *                                                redirect URIs its document lists (cimd/cimd-operator.ts)
 *   clients disallow-cimd <client_id URL>        back to loopback redirect URIs only
 *   clients cimd                                 every metadata-document client: fetch status, last error,
 *                                                cache deadlines, whether https redirects are allowed
 *   apps list <account email>                    the apps that account allowed (the Connected apps page)
 *   apps revoke <account email> <client_id>      end that app's access for that account (cli/apps-command.ts)
 *   accounts list                                every account: email, name, role, created, lock state
 *   accounts create-staff --email E --name N [--password-stdin]
 *                                                a staff account (password from stdin, else generated and
 *                                                printed once; cli/accounts-command.ts)
 *   accounts unlock <email>                      clear what the login throttle holds against an account
 *   accounts reset-password <email>              a generated password, printed once; its sessions end
 *   audit [--type T] [--client ID] [--account ID] [--since ISO] [--until ISO] [--limit N]
 *                                                the newest security events, as JSON lines
 *   activity [--event E] [--client ID] [--account EMAIL|ID] [--limit N] [--before CURSOR] [--json]
 *                                                the audit log as the Activity page shows it
 *                                                (cli/activity-command.ts)
 *
 * Reads the same environment as the server (REDIS_URL, MONGODB_URI, …). Prints JSON, except the
 * listings `clients list` and `activity`, which print a line per item unless given `--json`. Every
 * character of what it prints that a terminal would act on or hide is shown escaped
 * (`@school/shared` terminal-text.ts), on stdout and stderr alike.
 */
import { parseArgs } from 'node:util';
import { terminalJson, terminalSafe } from '@school/shared';
import { loadConfig } from '../config.js';
import { bootstrap } from '../bootstrap.js';
import { AUDIT_EVENT_TYPES, type AuditEventType } from '../audit/audit-log.js';
import { createLogger } from '../logger.js';
import { seedAdmin } from './seed-admin.js';
import { loadSeedConfig } from './seed-config.js';
import { createIntegration, createIntrospector, deleteClient } from '../provider/operator-clients.js';
import { sweepClients } from '../provider/client-sweep.js';
import { appsCommand } from './apps-command.js';
import { runClientsList } from './clients-list-command.js';
import { runActivity } from './activity-command.js';
import { accountsCommand } from './accounts-command.js';
import { loginGuardFor } from '../accounts/login-guard.js';
import { allowCimdClient, disallowCimdClient, listCimdClients } from '../cimd/cimd-operator.js';

/** A message on stderr: its text may carry what was typed or stored, so it is escaped too. */
const warn = (message: string) => console.error(terminalSafe(message));

const USAGE = `usage:
  school-auth seed-admin
  school-auth clients create-integration --name <name> --redirect-uri <https uri> [--redirect-uri …]
  school-auth clients create-introspector --name <name>
  school-auth clients list [--kind open|metadata-document|integration|service] [--never-used] [--idle-days <n>] [--json]
  school-auth clients delete <client_id>
  school-auth clients sweep
  school-auth clients allow-cimd <client_id URL>
  school-auth clients disallow-cimd <client_id URL>
  school-auth clients cimd
  school-auth apps list <account email>
  school-auth apps revoke <account email> <client_id>
  school-auth accounts list
  school-auth accounts create-staff --email <email> --name <name> [--password-stdin]
  school-auth accounts unlock <email>
  school-auth accounts reset-password <email>
  school-auth audit [--type <event type>] [--client <id>] [--account <id>] [--since <ISO date>] [--until <ISO date>] [--limit <n>]
  school-auth activity [--event <event type>] [--client <id>] [--account <email or id>] [--limit <n>] [--before <cursor>] [--json]`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      type: { type: 'string' },
      client: { type: 'string' },
      account: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      // clients list, activity
      kind: { type: 'string' },
      'never-used': { type: 'boolean' },
      'idle-days': { type: 'string' },
      json: { type: 'boolean' },
      event: { type: 'string' },
      before: { type: 'string' },
      email: { type: 'string' },
      'password-stdin': { type: 'boolean' },
    },
  });
  const [command, sub, arg] = positionals;
  const config = loadConfig();
  // Checked before anything is opened, so a refused password stops the command at once.
  const seed = command === 'seed-admin' ? loadSeedConfig() : undefined;
  const runtime = await bootstrap(config, createLogger('warn', 'school-auth'));
  try {
    const print = (v: unknown) => console.log(terminalJson(v, 2));
    let apps: Awaited<ReturnType<typeof appsCommand>>;
    if (command === 'seed-admin' && seed) {
      print(await seedAdmin(runtime.accounts, seed));
    } else if (
      command === 'apps' &&
      (apps = await appsCommand(runtime, config.REDIS_KEY_PREFIX, [sub, arg, positionals[3]]))
    ) {
      if ('error' in apps) {
        warn(apps.error);
        return 1;
      }
      print(apps.print);
    } else if (command === 'accounts') {
      const deps = {
        ...runtime,
        loginGuard: loginGuardFor(runtime.redis, config),
        prefix: config.REDIS_KEY_PREFIX,
      };
      const args = {
        sub,
        arg,
        email: values.email,
        name: values.name,
        passwordStdin: values['password-stdin'],
      };
      const outcome = await accountsCommand(deps, args);
      if (!outcome) {
        console.error(USAGE);
        return 2;
      }
      if ('error' in outcome) {
        warn(outcome.error);
        return outcome.code;
      }
      print(outcome.print);
    } else if (command === 'audit') {
      const date = (v: string | undefined) => (v ? new Date(v) : undefined);
      const type = values.type as AuditEventType | undefined;
      if (type && !AUDIT_EVENT_TYPES.includes(type))
        throw new Error(`--type must be one of ${AUDIT_EVENT_TYPES.join(', ')}`);
      const events = await runtime.audit.query({
        type,
        clientId: values.client,
        accountId: values.account,
        since: date(values.since),
        until: date(values.until),
        limit: values.limit ? Number(values.limit) : undefined,
      });
      for (const e of events) console.log(terminalJson(e));
    } else if (command === 'clients' && sub === 'create-integration' && values.name) {
      print(await createIntegration(runtime.provider, values.name, values['redirect-uri'] ?? []));
    } else if (command === 'clients' && sub === 'create-introspector' && values.name) {
      print(await createIntrospector(runtime.provider, values.name));
    } else if (command === 'activity') {
      const { audit, accounts, redis } = runtime;
      const next = await runActivity({ audit, accounts, redis, prefix: config.REDIS_KEY_PREFIX }, values);
      if (next) warn(`older events: --before ${next}`);
    } else if (command === 'clients' && sub === 'list') {
      await runClientsList(runtime.redis, config.REDIS_KEY_PREFIX, values);
    } else if (command === 'clients' && sub === 'delete' && arg) {
      if (!(await deleteClient(runtime.clients, arg))) {
        warn(`no client ${arg}`);
        return 1;
      }
      print({ deleted: arg });
    } else if (command === 'clients' && sub === 'allow-cimd' && arg) {
      await allowCimdClient(runtime.redis, config.REDIS_KEY_PREFIX, arg);
      print({ allowed: arg });
    } else if (command === 'clients' && sub === 'disallow-cimd' && arg) {
      if (!(await disallowCimdClient(runtime.redis, config.REDIS_KEY_PREFIX, arg))) {
        warn(`${arg} was not allowed`);
        return 1;
      }
      print({ disallowed: arg });
    } else if (command === 'clients' && sub === 'cimd') {
      print(await listCimdClients(runtime.redis, config.REDIS_KEY_PREFIX));
    } else if (command === 'clients' && sub === 'sweep') {
      const policy = { unusedSeconds: config.CLIENT_UNUSED_TTL, idleSeconds: config.CLIENT_IDLE_TTL };
      print(await sweepClients(runtime.clients, policy));
    } else {
      console.error(USAGE);
      return 2;
    }
    return 0;
  } finally {
    await runtime.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    warn(`school-auth: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
