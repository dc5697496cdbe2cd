/**
 * All clients (admins only): every stored client a page at a time with its kind, created, last used
 * and the number of accounts that granted it, filtered by a GET form (storage/client-listing.ts), and
 * Delete: a confirmation page, then a form that ends the client's grants and tokens and the client
 * itself (storage/client-removal.ts, as `school-auth clients delete` does: every API instance drops
 * the tokens at once through the revocation feed), audited as `client_deleted` with the admin's
 * account, request id and address.
 *
 * After a deletion the list says what was deleted by reading it back from the audit log (the event
 * this admin's deletion just wrote), never from the query string, so a crafted link cannot make the
 * page announce anything.
 */
import { z } from 'zod';
import type { AuditLog } from '../audit/audit-log.js';
import { sendPage } from '../pages/html.js';
import { NotFoundError } from '@school/shared';
import { removeClient, type ClientStore } from '../storage/client-removal.js';
import { listClients, storedClients, UNREADABLE, type ClientFilter } from '../storage/client-listing.js';
import { unavailableApp } from './client-rows.js';
import { countGrantingAccounts } from '../storage/client-accounts.js';
import { clientKind } from '../clients/client-kind.js';
import { accountPath, type AccountStep } from './signed-in.js';
import { clientsQuery } from './clients-query.js';
import {
  allClientsPage,
  deleteClientPage,
  type DeletedClient,
  type FilterProblem,
} from './all-clients-views.js';

/** Clients a page asks for (a page may hold a few more: storage/client-listing.ts). */
export const CLIENTS_PAGE_SIZE = 50;

/** The Delete form. */
export const deleteClientForm = z.object({ csrf: z.string(), client_id: z.string().min(1).max(2000) });

/** The filter of a parsed query. */
export function clientFilter(q: z.infer<typeof clientsQuery>): ClientFilter {
  return { kind: q.kind, neverUsed: q.never_used === '1' || undefined, idleDays: q.idle_days };
}

/** The filters `raw` named with a value that did not read (so `q` has none): said on the page. */
function filterProblems(raw: Record<string, unknown>, q: z.infer<typeof clientsQuery>): FilterProblem[] {
  const fields = ['kind', 'idle_days', 'never_used', 'after'] as const;
  return fields.flatMap((field) => {
    const given = raw[field];
    if (given === undefined || given === '' || q[field] !== undefined) return [];
    const text = Array.isArray(given) ? given.join(', ') : typeof given === 'string' ? given : '';
    return [{ field, given: text.slice(0, 200) }];
  });
}

/** The deletion this admin just made of `clientId`, as the audit log recorded it (last 10 minutes). */
async function justDeleted(audit: AuditLog, clientId: string, accountId: string) {
  const since = new Date(Date.now() - 600_000);
  const [event] = await audit.query({ type: 'client_deleted', clientId, accountId, since, limit: 1 });
  if (!event) return undefined;
  const d = event.details ?? {};
  return {
    clientId,
    name: typeof d.client_name === 'string' ? d.client_name : undefined,
    grants: Number(d.grants ?? 0),
    tokens: Number(d.tokens ?? 0),
  } satisfies DeletedClient;
}

/** The list, the confirmation page and the Delete step. */
export function allClientsSteps(store: ClientStore & { audit: AuditLog }): {
  show: AccountStep;
  confirm: AccountStep;
  remove: AccountStep<{ form: z.infer<typeof deleteClientForm> }>;
} {
  return {
    show: async function showAllClients(ctx) {
      const q = clientsQuery.parse(ctx.query);
      const problems = filterProblems(ctx.query, q);
      const page = await listClients(store.redis, store.prefix, {
        filter: clientFilter(q),
        cursor: q.after,
        pageSize: CLIENTS_PAGE_SIZE,
      });
      const deleted = q.deleted
        ? await justDeleted(store.audit, q.deleted, ctx.state.account._id)
        : undefined;
      sendPage(
        ctx,
        problems.length ? 400 : 200,
        allClientsPage({ ...ctx.state, page, query: q, deleted, problems }),
      );
    },
    confirm: async function confirmDeleteClient(ctx) {
      const clientId = typeof ctx.query.client_id === 'string' ? ctx.query.client_id : '';
      const metadata = (await storedClients(store.redis, store.prefix, [clientId])).get(clientId);
      if (!metadata) throw new NotFoundError('no such client');
      const [accounts] = await countGrantingAccounts(store.redis, store.prefix, [clientId]);
      const app =
        metadata === UNREADABLE
          ? unavailableApp(clientId)
          : {
              clientId,
              name: metadata.client_name,
              kind: clientKind({ clientId, metadata: () => metadata }),
            };
      sendPage(ctx, 200, deleteClientPage({ ...ctx.state, app, accounts: accounts ?? 0 }));
    },
    remove: async function deleteClient(ctx) {
      const { account, form, requestId } = ctx.state;
      await removeClient(store, form.client_id, 'admin', { requestId, ip: ctx.ip, accountId: account._id });
      ctx.status = 303;
      ctx.redirect(
        `${accountPath('clients')}?${new URLSearchParams({ deleted: form.client_id }).toString()}`,
      );
    },
  };
}
