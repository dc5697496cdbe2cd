/**
 * The Activity page: the filter form (GET), one table row per audit event (a card per event at phone
 * width, from the shared stylesheet), and paging by cursor. App names and ids are client-supplied,
 * so each is in its own `<bdi>`; so are emails and addresses.
 */
import { ACCOUNT_PATH } from '@school/shared';
import type { z } from 'zod';
import type { AccountProfile } from '../accounts/account-store.js';
import { AUDIT_EVENT_TYPES, type AuditEvent } from '../audit/audit-log.js';
import type { ActivityPage } from '../audit/audit-page.js';
import { EVENT_WORDS, eventWords } from '../audit/event-words.js';
import { html, type SafeHtml } from '../pages/html.js';
import type { activityQuery } from './activity-query.js';
import { listTable, pageLinks } from './list-parts.js';
import { accountPage, when } from './views.js';
import { ACCOUNT_CONSOLE_CLIENT_ID } from '../clients/client-kind.js';

type Query = z.infer<typeof activityQuery>;

function filterForm(q: Query): SafeHtml {
  return html`<form
    method="get"
    action="${ACCOUNT_PATH}/activity"
    class="filters"
    aria-label="Filter activity"
  >
    <div>
      <label for="event">Event</label>
      <select id="event" name="event">
        <option value="">Every event</option>
        ${AUDIT_EVENT_TYPES.map(
          (t) => html`<option value="${t}" ${q.event === t ? 'selected' : ''}>${EVENT_WORDS[t]}</option>`,
        )}
      </select>
    </div>
    <div>
      <label for="app">App (client id)</label>
      <input type="text" id="app" name="app" value="${q.app ?? ''}" />
    </div>
    <div>
      <label for="account">Account (email or id)</label>
      <input type="text" id="account" name="account" value="${q.account ?? ''}" />
    </div>
    <button type="submit">Show</button>
  </form>`;
}

/** What a row shows beside the event: the app's name and the account's email, by id. */
export interface ActivityNames {
  apps: Map<string, string>;
  emails: Map<string, string>;
}

function appCell(e: AuditEvent, names: ActivityNames): SafeHtml {
  if (!e.clientId) return html`—`;
  // The account pages sign people in as an app of their own: said as what it is, not by its id.
  if (e.clientId === ACCOUNT_CONSOLE_CLIENT_ID) return html`These account pages (signing in to them)`;
  const name = names.apps.get(e.clientId);
  return html`${name ? html`<bdi>${name}</bdi><br />` : ''}<span class="note"
      ><bdi>${e.clientId}</bdi></span
    >`;
}

function row(e: AuditEvent, names: ActivityNames): SafeHtml {
  const email = e.accountId ? names.emails.get(e.accountId) : undefined;
  return html`<tr>
    <td data-label="Time">${when(new Date(e.at))}</td>
    <td data-label="Event">${eventWords(e)} <code>${e.type}</code></td>
    <td data-label="App" class="ids">${appCell(e, names)}</td>
    <td data-label="Account">${e.accountId ? html`<bdi>${email ?? e.accountId}</bdi>` : '—'}</td>
    <td data-label="Address">${e.ip ? html`<bdi>${e.ip}</bdi>` : '—'}</td>
  </tr>`;
}

/** Activity: the filters, a page of events newest first, the paging links. */
export function activityPageView(p: {
  account: AccountProfile;
  query: Query;
  page: ActivityPage;
  names: ActivityNames;
}): string {
  const { query, page, names } = p;
  return accountPage(
    'Activity',
    p.account,
    'activity',
    html`<p>
        What happened at this school’s sign-in, newest first: sign-ins, apps allowed and denied, access taken
        back, and anything that looked like an attack. Times are in UTC; the address is the one the request
        came from.
      </p>
      ${filterForm(query)}
      ${listTable(
        ['Time', 'Event', 'App', 'Account', 'Address'],
        page.events.map((e) => row(e, names)),
        'No event matches.',
      )}
      ${pageLinks({
        path: `${ACCOUNT_PATH}/activity`,
        filters: { event: query.event, app: query.app, account: query.account },
        cursorParam: 'before',
        current: query.before,
        next: page.next,
        labels: { first: 'Newest events', next: 'Older events' },
      })}`,
  );
}
