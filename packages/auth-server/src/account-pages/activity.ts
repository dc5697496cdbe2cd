/**
 * Activity (admins only): the school's audit log newest first, a page at a time
 * (audit/audit-page.ts), filtered by a GET form by event, app (client id) and account (email or id),
 * each event with its time, its words (audit/event-words.ts), the app (its stored name when it still
 * exists, or the name its deletion recorded), the account's email and the address as the edge saw it.
 */
import type { RedisClient } from '@school/shared';
import type { AccountStore } from '../accounts/account-store.js';
import type { AuditEvent, AuditLog } from '../audit/audit-log.js';
import { activityPage, type ActivityFilter } from '../audit/audit-page.js';
import { sendPage } from '../pages/html.js';
import { storedClients, UNREADABLE } from '../storage/client-listing.js';
import type { AccountStep } from './signed-in.js';
import { activityPageView, type ActivityNames } from './activity-views.js';
import { activityQuery } from './activity-query.js';

/** Events per page. */
export const ACTIVITY_PAGE_SIZE = 50;

/** The audit filter of a query; `account` may be an email (looked up) or an account id. */
export async function activityFilter(
  accounts: AccountStore,
  q: { event?: AuditEvent['type']; app?: string; account?: string },
): Promise<ActivityFilter> {
  const accountId = q.account?.includes('@') ? ((await accounts.idOf(q.account)) ?? q.account) : q.account;
  return { type: q.event, clientId: q.app, accountId };
}

/** The names of the apps and accounts `events` mention (one MGET, one read per distinct account). */
export async function activityNames(
  redis: RedisClient,
  prefix: string,
  accounts: AccountStore,
  events: AuditEvent[],
): Promise<ActivityNames> {
  const clientIds = events.flatMap((e) => (e.clientId ? [e.clientId] : []));
  const accountIds = [...new Set(events.flatMap((e) => (e.accountId ? [e.accountId] : [])))];
  const [stored, profiles] = await Promise.all([
    storedClients(redis, prefix, clientIds),
    Promise.all(accountIds.map((id) => accounts.profile(id))),
  ]);
  const apps = new Map<string, string>();
  for (const e of events) {
    const recorded = e.details?.client_name;
    if (e.clientId && typeof recorded === 'string') apps.set(e.clientId, recorded);
  }
  for (const [id, m] of stored) if (m !== UNREADABLE && m.client_name) apps.set(id, m.client_name);
  const emails = new Map<string, string>();
  profiles.forEach((p, i) => p && emails.set(accountIds[i]!, p.email));
  return { apps, emails };
}

/** The Activity page's step. */
export function activitySteps(deps: {
  audit: AuditLog;
  accounts: AccountStore;
  redis: RedisClient;
  prefix: string;
}): { show: AccountStep } {
  return {
    show: async function showActivity(ctx) {
      const q = activityQuery.parse(ctx.query);
      const filter = await activityFilter(deps.accounts, q);
      const page = await activityPage(deps.audit, filter, { cursor: q.before, pageSize: ACTIVITY_PAGE_SIZE });
      const names = await activityNames(deps.redis, deps.prefix, deps.accounts, page.events);
      sendPage(ctx, 200, activityPageView({ account: ctx.state.account, query: q, page, names }));
    },
  };
}
