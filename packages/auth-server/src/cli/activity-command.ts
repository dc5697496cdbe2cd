/**
 * `school-auth activity [--event E] [--client ID] [--account EMAIL|ID] [--limit N] [--before CURSOR]
 * [--json]`: the audit log newest first, as the Activity page shows it (audit/audit-page.ts): a line
 * per event (time, event in words, app, account, address), or with `--json` one JSON object per line.
 * Every field is printed with its unprintable characters escaped (`@school/shared` terminal-text.ts).
 * When older events remain, the cursor of the next page goes to stderr as `--before <cursor>`.
 */
import { terminalJson, terminalSafe, type RedisClient } from '@school/shared';
import type { AccountStore } from '../accounts/account-store.js';
import { AUDIT_EVENT_TYPES, type AuditEventType, type AuditLog } from '../audit/audit-log.js';
import { activityPage, MAX_ACTIVITY_PAGE } from '../audit/audit-page.js';
import { EVENT_WORDS, eventWords } from '../audit/event-words.js';
import { activityFilter, activityNames } from '../account-pages/activity.js';
import { eventJson, jsonLine } from './output.js';

/** The command's options, as parsed by cli/main.ts. */
export interface ActivityOptions {
  event?: string;
  client?: string;
  account?: string;
  limit?: string;
  before?: string;
  json?: boolean;
}

/** What the command reads. */
export interface ActivityDeps {
  audit: AuditLog;
  accounts: AccountStore;
  redis: RedisClient;
  prefix: string;
}

/** Prints one page of events; returns the cursor of the next page, if any. */
export async function runActivity(
  deps: ActivityDeps,
  o: ActivityOptions,
  write: (line: string) => void = console.log,
): Promise<string | undefined> {
  const event = o.event as AuditEventType | undefined;
  if (event && !AUDIT_EVENT_TYPES.includes(event))
    throw new Error(`--event must be one of ${AUDIT_EVENT_TYPES.join(', ')}`);
  const limit = o.limit === undefined ? 50 : Number(o.limit);
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= MAX_ACTIVITY_PAGE))
    throw new Error(`--limit must be a whole number from 1 to ${MAX_ACTIVITY_PAGE}`);
  const filter = await activityFilter(deps.accounts, { event, app: o.client, account: o.account });
  const page = await activityPage(deps.audit, filter, { cursor: o.before, pageSize: limit });
  const names = await activityNames(deps.redis, deps.prefix, deps.accounts, page.events);
  for (const e of page.events) {
    const account = e.accountId ? (names.emails.get(e.accountId) ?? e.accountId) : undefined;
    const app = e.clientId ? names.apps.get(e.clientId) : undefined;
    if (o.json) {
      const email = e.accountId ? names.emails.get(e.accountId) : undefined;
      write(
        jsonLine({ ...eventJson(e), words: EVENT_WORDS[e.type], client_name: app, account_email: email }),
      );
    } else {
      const at = new Date(e.at).toISOString();
      const appText = e.clientId ? `${terminalSafe(e.clientId)}${app ? ` (${terminalJson(app)})` : ''}` : '-';
      const fields = [eventWords(e), account ?? '-', e.ip ?? '-'].map(terminalSafe);
      write([at, fields[0], appText, fields[1], fields[2]].join('\t'));
    }
  }
  return page.next;
}
