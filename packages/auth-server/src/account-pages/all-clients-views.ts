/**
 * The All clients pages: the filter form (GET, so a filtered list is a link), one table row per
 * client (a card per client at phone width, from the shared stylesheet), paging by cursor, and the
 * confirmation page of Delete. Every client-supplied string goes through the page parts (`<bdi>`).
 */
import { ACCOUNT_PATH, plural } from '@school/shared';
import type { AccountProfile } from '../accounts/account-store.js';
import { html, type SafeHtml } from '../pages/html.js';
import { confirmForm } from './confirm-form.js';
import { appLabel, destinationText, SELF_DECLARED_NOTE, type AppIdentity } from '../pages/page-parts.js';
import type { ClientPage, ListedClient } from '../storage/client-listing.js';
import type { clientsQuery } from './clients-query.js';
import { listTable, pageLinks } from './list-parts.js';
import { accountPage, when } from './views.js';
import type { z } from 'zod';

/** A deletion as the audit log recorded it. */
export interface DeletedClient {
  clientId: string;
  name?: string;
  grants: number;
  tokens: number;
}

const KIND_OPTIONS: [string, string][] = [
  ['', 'Every kind'],
  ['open', 'Self-declared (open registration)'],
  ['metadata-document', 'Published metadata document'],
  ['integration', 'Registered integration'],
  ['service', 'Service'],
];

/** The filters a query named with a value that does not read: the field, and what it takes. */
export interface FilterProblem {
  field: 'kind' | 'idle_days' | 'never_used' | 'after';
  /** What was given, shown back in the field. */
  given: string;
}

const PROBLEM_WORDS: Record<FilterProblem['field'], string> = {
  kind: 'Kind must be one of the kinds listed',
  idle_days: '“Not used for (days)” must be a whole number of days from 1 to 3650',
  never_used: '“Never completed a sign-in” is ticked or not',
  after: 'The page link is not one this list made',
};

function filterForm(q: z.infer<typeof clientsQuery>, problems: FilterProblem[]): SafeHtml {
  const idle = problems.find((p) => p.field === 'idle_days');
  return html`<form method="get" action="${ACCOUNT_PATH}/clients" class="filters" aria-label="Filter clients">
    <div>
      <label for="kind">Kind</label>
      <select id="kind" name="kind">
        ${KIND_OPTIONS.map(
          ([v, label]) =>
            html`<option value="${v}" ${(q.kind ?? '') === v ? 'selected' : ''}>${label}</option>`,
        )}
      </select>
    </div>
    <div>
      <label for="idle_days">Not used for (days)</label>
      <input
        type="text"
        inputmode="numeric"
        id="idle_days"
        name="idle_days"
        value="${idle ? idle.given : (q.idle_days ?? '')}"
        ${idle ? html`aria-invalid="true" aria-describedby="filter-problems"` : ''}
      />
    </div>
    <div>
      <label class="check"
        ><input type="checkbox" name="never_used" value="1" ${q.never_used ? 'checked' : ''} /> Never
        completed a sign-in</label
      >
    </div>
    <button type="submit">Show</button>
  </form>`;
}

/** What the page says of filters it could not apply. */
function problemsNotice(problems: FilterProblem[]): SafeHtml {
  if (!problems.length) return html``;
  return html`<div class="error" role="alert" id="filter-problems">
    <p>The list below is not filtered by what could not be read:</p>
    <ul>
      ${problems.map((p) => html`<li>${PROBLEM_WORDS[p.field]}, not “<bdi>${p.given}</bdi>”.</li>`)}
    </ul>
  </div>`;
}

function row(c: ListedClient): SafeHtml {
  const destinations = [...new Set(c.redirectUris.map(destinationText))];
  const accounts = plural(c.accounts, 'account');
  const confirmPath = `${ACCOUNT_PATH}/clients/delete?${new URLSearchParams({ client_id: c.clientId }).toString()}`;
  return html`<tr>
    <td data-label="App" class="ids">
      ${appLabel(c, { listed: true })}
      <span class="note">Client id <bdi>${c.clientId}</bdi></span>
      ${
        destinations.length
          ? html`<br /><span class="note"
                >Sends you to ${destinations.map((d) => html`<bdi>${d}</bdi> `)}</span
              >`
          : ''
      }
    </td>
    <td data-label="Created">${c.createdAt === undefined ? 'Not recorded' : when(c.createdAt)}</td>
    <td data-label="Last used">${when(c.lastUsed)}</td>
    <td data-label="Allowed by">${accounts}</td>
    <td data-label="Delete"><a href="${confirmPath}">Delete…</a></td>
  </tr>`;
}

/** All clients: the filters, a page of clients, the paging links. */
export function allClientsPage(p: {
  account: AccountProfile;
  page: ClientPage;
  query: z.infer<typeof clientsQuery>;
  deleted?: DeletedClient;
  /** Filters of the query that did not read (the list is shown without them). */
  problems?: FilterProblem[];
}): string {
  const { page, query, deleted } = p;
  const problems = p.problems ?? [];
  const selfDeclared = page.clients.some((c) => c.kind === 'open' && !c.unavailable);
  return accountPage(
    'All clients',
    p.account,
    'clients',
    html`${
        deleted
          ? html`<p class="ok" role="status">
              <bdi>${deleted.name ?? deleted.clientId}</bdi> was deleted. ${plural(deleted.grants, 'grant')}
              and ${plural(deleted.tokens, 'token')} ended with it.
            </p>`
          : ''
      }
      <p>
        Every app registered with this school’s sign-in. Delete one and everyone’s access through it ends at
        once.
      </p>
      ${problemsNotice(problems)} ${filterForm(query, problems)}
      ${selfDeclared ? html`<p class="note">${SELF_DECLARED_NOTE}</p>` : ''}
      ${listTable(
        ['App', 'Created', 'Last used', 'Allowed by', 'Delete'],
        page.clients.map(row),
        `No app ${query.after ? 'on this page ' : ''}matches.`,
      )}
      ${pageLinks({
        path: `${ACCOUNT_PATH}/clients`,
        filters: { kind: query.kind, idle_days: query.idle_days, never_used: query.never_used },
        cursorParam: 'after',
        current: query.after,
        next: page.next,
        labels: { first: 'First page', next: 'More clients' },
      })}`,
  );
}

/** Delete's confirmation page: what ends with the client, and the form that ends it. */
export function deleteClientPage(p: {
  account: AccountProfile;
  csrf: string;
  app: AppIdentity;
  accounts: number;
}): string {
  const who =
    p.accounts === 0
      ? 'No account has allowed it yet.'
      : `Every access it has ends at once, for the ${p.accounts === 1 ? 'account' : plural(p.accounts, 'account')} that allowed it.`;
  return accountPage(
    'Delete this app?',
    p.account,
    'clients',
    html`<section class="card">
        ${appLabel(p.app)}<span class="note">Client id <bdi>${p.app.clientId}</bdi></span>
      </section>
      <p>
        ${who} It can no longer sign anyone in: it would have to register again, and everyone would have to
        allow it again.
      </p>
      ${confirmForm({
        action: `${ACCOUNT_PATH}/clients/delete`,
        csrf: p.csrf,
        target: { name: 'client_id', value: p.app.clientId },
        button: 'Delete this app',
        cancel: { href: `${ACCOUNT_PATH}/clients`, text: 'Cancel: keep this app' },
      })}`,
  );
}
