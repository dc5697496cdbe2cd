/**
 * `school-auth clients …`: the stored clients an operator manages (provider/operator-clients.ts,
 * provider/client-sweep.ts, cimd/cimd-operator.ts) and the All clients listing
 * (cli/clients-list-command.ts).
 */
import { Option, type Command } from 'commander';
import { checkCimdDocument, type CimdCheck } from '../cimd/cimd-check.js';
import { allowCimdClient, disallowCimdClient, listCimdClients } from '../cimd/cimd-operator.js';
import { cimdCachePolicy, createCimdFetcher } from '../cimd/cimd-setup.js';
import { sweepClients } from '../provider/client-sweep.js';
import {
  createIntegration,
  createIntrospector,
  createNative,
  deleteClient,
  setClientEgress,
} from '../provider/operator-clients.js';
import { everyEgressRange, forgetEgressRanges } from '../storage/client-egress.js';
import { LISTED_KINDS } from '../storage/client-listing.js';
import { runClientsList } from './clients-list-command.js';
import { OperatorError } from './operator-error.js';
import { print } from './output.js';
import { wholeNumber, withRuntime } from './runtime.js';

/** A document's cache deadlines as the commands print times, under keys ending in `_at`. */
const cacheJson = ({ fresh_until, stale_until, ...cache }: NonNullable<CimdCheck['cache']>) => ({
  ...cache,
  fresh_ends_at: fresh_until,
  stale_ends_at: stale_until,
});

/** Adds `clients` and its subcommands to the program. */
export function registerClientsCommands(program: Command): void {
  const clients = program
    .command('clients')
    .description('stored clients: integrations, native clients, services, open registrations');

  clients
    .command('create-integration')
    .description('a registered integration with fixed https redirect URIs (its secret is printed once)')
    .requiredOption('--name <name>', 'the name the consent page shows')
    .requiredOption(
      '--redirect-uri <uri>',
      'an https redirect URI (repeat the option for more)',
      (uri: string, all: string[] = []) => [...all, uri],
    )
    .option('--device-pairing', 'may also pair devices (RFC 8628) while DEVICE_PAIRING is on')
    .action((o: { name: string; redirectUri: string[]; devicePairing?: boolean }) =>
      withRuntime(async (runtime) =>
        print(
          await createIntegration(runtime.provider, o.name, o.redirectUri, {
            devicePairing: o.devicePairing ?? false,
          }),
        ),
      ),
    );

  clients
    .command('create-native')
    .description(
      'a named public client with a loopback redirect URI, for an app that cannot register itself (its id is printed)',
    )
    .requiredOption('--name <name>', 'the name the consent page shows')
    .requiredOption('--redirect-uri <uri>', 'its loopback redirect URI, e.g. http://localhost:8787/callback')
    .action((o: { name: string; redirectUri: string }) =>
      withRuntime(async (runtime) => print(await createNative(runtime.provider, o.name, o.redirectUri))),
    );

  clients
    .command('create-introspector')
    .description('a service allowed to introspect every token (its secret is printed once)')
    .requiredOption('--name <name>', 'the service’s name')
    .action((o: { name: string }) =>
      withRuntime(async (runtime) => print(await createIntrospector(runtime.provider, o.name))),
    );

  clients
    .command('list')
    .description('every stored client as All clients shows them, a line each')
    .addOption(new Option('--kind <kind>', 'only clients of this kind').choices(LISTED_KINDS))
    .option('--never-used', 'only clients that never completed a sign-in')
    .option('--idle-days <n>', 'only clients not used for this many days', wholeNumber(1))
    .option('--json', 'one JSON object per line')
    .action((o: { kind?: string; neverUsed?: boolean; idleDays?: number; json?: boolean }) =>
      withRuntime(async (runtime, config) => {
        const options = {
          kind: o.kind,
          'never-used': o.neverUsed,
          'idle-days': o.idleDays === undefined ? undefined : String(o.idleDays),
          json: o.json,
        };
        await runClientsList(runtime.redis, config.REDIS_KEY_PREFIX, options);
      }),
    );

  clients
    .command('delete')
    .description('end a stored client’s grants and tokens, then delete it')
    .argument('<client_id>', 'the client’s id')
    .action((clientId: string) =>
      withRuntime(async (runtime) => {
        if (!(await deleteClient(runtime.clients, clientId)))
          throw new OperatorError(`There is no stored client ${clientId}.`);
        print({ client_id: clientId, deleted: true });
      }),
    );

  clients
    .command('sweep')
    .description('remove unused and idle self-registered clients now (CLIENT_UNUSED_TTL, CLIENT_IDLE_TTL)')
    .action(() =>
      withRuntime(async (runtime, config) => {
        const policy = { unusedSeconds: config.CLIENT_UNUSED_TTL, idleSeconds: config.CLIENT_IDLE_TTL };
        print(await sweepClients(runtime.clients, policy));
      }),
    );

  clients
    .command('allow-cimd')
    .description('let a metadata-document client use the https redirect URIs its document lists')
    .argument('<client_id>', 'the client id (the document’s https URL)')
    .action((clientId: string) =>
      withRuntime(async (runtime, config) => {
        await allowCimdClient(runtime.redis, config.REDIS_KEY_PREFIX, clientId);
        print({ client_id: clientId, https_redirects_allowed: true });
      }),
    );

  clients
    .command('disallow-cimd')
    .description('back to loopback redirect URIs only for a metadata-document client')
    .argument('<client_id>', 'the client id (the document’s https URL)')
    .action((clientId: string) =>
      withRuntime(async (runtime, config) => {
        if (!(await disallowCimdClient(runtime.redis, config.REDIS_KEY_PREFIX, clientId)))
          throw new OperatorError(`${clientId} was not allowed.`);
        print({ client_id: clientId, https_redirects_allowed: false });
      }),
    );

  clients
    .command('set-egress')
    .description(
      'list a hosted client’s published egress ranges: its refreshes from inside them count as one installation',
    )
    .argument('<client_id>', 'an integration’s id, or an allowed metadata-document client’s URL')
    .argument('<cidr...>', 'the ranges, e.g. 198.51.100.0/24 2001:db8:40::/48 (replaces any listed before)')
    .action((clientId: string, ranges: string[]) =>
      withRuntime(async (runtime, config) =>
        print(await setClientEgress(runtime.redis, config.REDIS_KEY_PREFIX, clientId, ranges)),
      ),
    );

  clients
    .command('clear-egress')
    .description('forget a hosted client’s egress ranges')
    .argument('<client_id>', 'the client’s id')
    .action((clientId: string) =>
      withRuntime(async (runtime, config) => {
        if (!(await forgetEgressRanges(runtime.redis, config.REDIS_KEY_PREFIX, clientId)))
          throw new OperatorError(`${clientId} has no egress ranges.`);
        print({ client_id: clientId, egress_ranges: [] });
      }),
    );

  clients
    .command('egress')
    .description('every hosted client with egress ranges, and its ranges')
    .action(() =>
      withRuntime(async (runtime, config) =>
        print(await everyEgressRange(runtime.redis, config.REDIS_KEY_PREFIX)),
      ),
    );

  clients
    .command('cimd')
    .description('every metadata-document client: fetch status, last error, cache deadlines')
    .action(() =>
      withRuntime(async (runtime, config) =>
        print(
          (await listCimdClients(runtime.redis, config.REDIS_KEY_PREFIX, config.DEVICE_PAIRING)).map(
            ({ fresh_until, stale_until, ...status }) => ({
              ...status,
              fresh_ends_at: fresh_until,
              stale_ends_at: stale_until,
            }),
          ),
        ),
      ),
    );
  clients
    .command('check')
    .description(
      'how a metadata document would be taken (kept, dropped, redirect URIs, cache) without storing anything; exit 1 if refused',
    )
    .argument('<url>', 'the client id (the document’s https URL)')
    .action((url: string) =>
      withRuntime(async (runtime, config) => {
        const deps = {
          redis: runtime.redis,
          prefix: config.REDIS_KEY_PREFIX,
          fetchDocument: createCimdFetcher(config),
          policy: cimdCachePolicy(config),
          devicePairing: config.DEVICE_PAIRING,
        };
        const check = await checkCimdDocument(deps, url);
        const { cache, ...rest } = check;
        print({ ...rest, cache: cache && cacheJson(cache) });
        if (check.outcome === 'refused') throw new OperatorError(`It would be refused: ${check.refused}`);
      }),
    );
}
