#!/usr/bin/env node
/**
 * The operator command, `school-auth` (run as `npm run auth -- <command>` from the repository):
 *
 *   seed-admin                                   create or update the admin from SEED_ADMIN_EMAIL/PASSWORD
 *                                                (no password outside production: one is generated
 *                                                for a new admin and printed once; cli/seed-admin.ts)
 *   clients create-integration --name N --redirect-uri https://… [--redirect-uri …]
 *   clients create-introspector --name N         a service allowed to introspect every token
 *   clients list                                 the operator-created clients
 *   clients delete <client_id>                   end a stored client's grants and tokens, then delete it
 *   clients sweep                                remove unused and idle self-registered clients now
 *                                                (CLIENT_UNUSED_TTL, CLIENT_IDLE_TTL; provider/client-sweep.ts)
 *   clients allow-cimd <client_id URL>           let a Client ID Metadata Document client use the https
 *                                                redirect URIs its document lists (cimd/cimd-operator.ts)
 *   clients disallow-cimd <client_id URL>        back to loopback redirect URIs only
 *   clients cimd                                 every metadata-document client: fetch status, last error,
 *                                                cache deadlines, whether https redirects are allowed
 *   accounts list                                every account: email, name, role, created, lock state
 *   accounts create-staff --email E --name N [--password-stdin]
 *                                                a staff account (password from stdin, else generated and
 *                                                printed once; cli/accounts-command.ts)
 *   accounts unlock <email>                      clear what the login throttle holds against an account
 *   accounts reset-password <email>              a generated password, printed once; its sessions end
 *   audit [--type T] [--client ID] [--account ID] [--since ISO] [--until ISO] [--limit N]
 *                                                the newest security events, as JSON lines
 *
 * Reads the same environment as the server (REDIS_URL, MONGODB_URI, …). Prints JSON.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { bootstrap } from '../bootstrap.js';
import { AUDIT_EVENT_TYPES, type AuditEventType } from '../audit/audit-log.js';
import { createLogger } from '../logger.js';
import { seedAdmin } from './seed-admin.js';
import { loadSeedConfig } from './seed-config.js';
import {
  createIntegration,
  createIntrospector,
  deleteClient,
  listOperatorClients,
} from '../provider/operator-clients.js';
import { sweepClients } from '../provider/client-sweep.js';
import { accountsCommand } from './accounts-command.js';
import { loginGuardFor } from '../interactions/login-guard.js';
import { allowCimdClient, disallowCimdClient, listCimdClients } from '../cimd/cimd-operator.js';

const USAGE = `usage:
  school-auth seed-admin
  school-auth clients create-integration --name <name> --redirect-uri <https uri> [--redirect-uri …]
  school-auth clients create-introspector --name <name>
  school-auth clients list
  school-auth clients delete <client_id>
  school-auth clients sweep
  school-auth clients allow-cimd <client_id URL>
  school-auth clients disallow-cimd <client_id URL>
  school-auth clients cimd
  school-auth accounts list
  school-auth accounts create-staff --email <email> --name <name> [--password-stdin]
  school-auth accounts unlock <email>
  school-auth accounts reset-password <email>
  school-auth audit [--type <event type>] [--client <id>] [--account <id>] [--since <ISO date>] [--until <ISO date>] [--limit <n>]`;

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
    const print = (v: unknown) => console.log(JSON.stringify(v, null, 2));
    if (command === 'seed-admin' && seed) {
      print(await seedAdmin(runtime.accounts, seed));
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
        console.error(outcome.error);
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
      for (const e of events) console.log(JSON.stringify(e));
    } else if (command === 'clients' && sub === 'create-integration' && values.name) {
      print(await createIntegration(runtime.provider, values.name, values['redirect-uri'] ?? []));
    } else if (command === 'clients' && sub === 'create-introspector' && values.name) {
      print(await createIntrospector(runtime.provider, values.name));
    } else if (command === 'clients' && sub === 'list') {
      print(await listOperatorClients(runtime.redis, config.REDIS_KEY_PREFIX));
    } else if (command === 'clients' && sub === 'delete' && arg) {
      if (!(await deleteClient(runtime.clients, arg))) {
        console.error(`no client ${arg}`);
        return 1;
      }
      print({ deleted: arg });
    } else if (command === 'clients' && sub === 'allow-cimd' && arg) {
      await allowCimdClient(runtime.redis, config.REDIS_KEY_PREFIX, arg);
      print({ allowed: arg });
    } else if (command === 'clients' && sub === 'disallow-cimd' && arg) {
      if (!(await disallowCimdClient(runtime.redis, config.REDIS_KEY_PREFIX, arg))) {
        console.error(`${arg} was not allowed`);
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
    console.error(`school-auth: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
