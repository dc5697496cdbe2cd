/**
 * `school-auth clients list [--kind K] [--never-used] [--idle-days N] [--json]`: every stored client,
 * as All clients shows them (storage/client-listing.ts), walked page by page so the command never
 * holds them all: a line each (id, kind, created, last used, accounts, name), or with `--json` one
 * JSON object per line.
 */
import { terminalJson, terminalSafe, type RedisClient } from '@school/shared';
import {
  LISTED_KINDS,
  listClients,
  type ClientFilter,
  type ListedClient,
} from '../storage/client-listing.js';
import { isoTime, jsonLine } from './output.js';

/** The command's options, as parsed by cli/main.ts. */
export interface ClientsListOptions {
  kind?: string;
  'never-used'?: boolean;
  'idle-days'?: string;
  json?: boolean;
}

/** The filter the options ask for; throws on a value that does not read. */
export function clientsListFilter(o: ClientsListOptions): ClientFilter {
  const kind = o.kind as ClientFilter['kind'];
  if (kind && !LISTED_KINDS.includes(kind))
    throw new Error(`--kind must be one of ${LISTED_KINDS.join(', ')}`);
  const idleDays = o['idle-days'] === undefined ? undefined : Number(o['idle-days']);
  if (idleDays !== undefined && !(Number.isInteger(idleDays) && idleDays >= 1))
    throw new Error('--idle-days must be a whole number of days, at least 1');
  return { kind, neverUsed: o['never-used'] || undefined, idleDays };
}

/** A client as the command prints it with `--json`. */
export function clientJson(c: ListedClient): Record<string, unknown> {
  return {
    client_id: c.clientId,
    client_name: c.name,
    kind: c.kind,
    created_at: isoTime(c.createdAt),
    last_used_at: isoTime(c.lastUsed),
    accounts: c.accounts,
    redirect_uris: c.redirectUris,
  };
}

function clientLine(c: ListedClient): string {
  const cells = [
    c.clientId,
    c.kind,
    isoTime(c.createdAt) ?? '-',
    isoTime(c.lastUsed) ?? 'never',
    `${c.accounts}`,
  ];
  return [...cells.map(terminalSafe), terminalJson(c.name ?? '')].join('\t');
}

/** Prints every stored client matching the options; returns how many. */
export async function runClientsList(
  redis: RedisClient,
  prefix: string,
  options: ClientsListOptions,
  write: (line: string) => void = console.log,
): Promise<number> {
  const filter = clientsListFilter(options);
  const seen = new Set<string>(); // SCAN may return a client twice during a rehash
  if (!options.json)
    write(['client_id', 'kind', 'created_at', 'last_used_at', 'accounts', 'client_name'].join('\t'));
  let cursor: string | undefined = '0';
  while (cursor) {
    const page = await listClients(redis, prefix, { filter, cursor, pageSize: 200 });
    for (const c of page.clients) {
      if (seen.has(c.clientId)) continue;
      seen.add(c.clientId);
      write(options.json ? jsonLine(clientJson(c)) : clientLine(c));
    }
    cursor = page.next;
  }
  return seen.size;
}
