/**
 * The Access register page and the term review page: one table row per app an account allowed (a
 * card per row at phone width, from the shared stylesheet), the app as every page shows it (with its
 * kind, and the domain of a metadata document), the account and its role, who approved, the scopes
 * under their data categories with when each was last used, and the dates. Every client-supplied
 * string goes through the page parts (`<bdi>`).
 */
import { ACCOUNT_PATH, API_SCOPE_NAMES } from '@school/shared';
import type { AccountProfile } from '../accounts/account-store.js';
import type { ClientKind } from '../clients/client-kind.js';
import { html, type SafeHtml } from '../pages/html.js';
import { appLabel } from '../pages/page-parts.js';
import { KIND_WORDS, type RegisterRow } from './access-register.js';
import { listTable, pageLinks } from './list-parts.js';
import { accountPage, formNotice, when } from './views.js';

const seconds = (iso: string | null) => (iso === null ? undefined : Date.parse(iso) / 1000);

const KIND_OF_WORDS = Object.fromEntries(Object.entries(KIND_WORDS).map(([k, w]) => [w, k])) as Record<
  string,
  ClientKind
>;

/** The app of a row, as the other pages show an app. */
export function rowApp(row: RegisterRow): SafeHtml {
  const app = {
    clientId: row.app.clientId,
    kind: KIND_OF_WORDS[row.app.kind] ?? 'open',
    ...(row.app.name === null ? {} : { name: row.app.name }),
    ...(row.app.unavailable ? { unavailable: true } : {}),
  };
  return html`${appLabel(app)}<span class="note">Client id <bdi>${row.app.clientId}</bdi></span>`;
}

/** The scopes of a row under their categories, each with when it was last used. */
function scopesCell(row: RegisterRow): SafeHtml {
  const use = (scope: string) => {
    if (!API_SCOPE_NAMES.includes(scope)) return 'used at sign-in';
    const at = row.scopeLastUsed[scope];
    return at === null || at === undefined ? 'not used yet' : `last used ${when(seconds(at))}`;
  };
  return html`${row.scopes.map(
    (g) =>
      html`<p class="group">${g.title}</p>
        <ul class="scopes">
          ${g.scopes.map((s) => html`<li><code>${s}</code> <span class="note">${use(s)}</span></li>`)}
        </ul>`,
  )}`;
}

/** The cells every table of rows has, after the first. */
function rowCells(row: RegisterRow): SafeHtml {
  return html`<td data-label="Account">
      <bdi>${row.account.email}</bdi><br /><span class="note">${row.account.role}</span>
    </td>
    <td data-label="Approved by">${row.approvedBy}</td>
    <td data-label="Scopes">${scopesCell(row)}</td>
    <td data-label="Granted">${when(seconds(row.grantedAt))}</td>
    <td data-label="Ends">${row.endsAt === null ? 'When revoked' : when(seconds(row.endsAt))}</td>`;
}

const COLUMNS = ['Account', 'Approved by', 'Scopes, by kind of data', 'Granted', 'Ends'];

/** The Access register: a page of rows, the paging links, and the downloads. */
export function registerPageView(p: {
  account: AccountProfile;
  rows: RegisterRow[];
  after?: string;
  next?: string;
  termReview: boolean;
}): string {
  return accountPage(
    'Access register',
    p.account,
    'register',
    html`<p>
        Every app that has access to someone’s school account now: who allowed it, what it may reach, and when
        it was last used. It matches each person’s Connected apps page.
      </p>
      <p class="actions">
        <a href="${ACCOUNT_PATH}/register/export?format=csv" download="access-register.csv"
          >Download as CSV (spreadsheet)</a
        >
        <a href="${ACCOUNT_PATH}/register/export?format=json">Download as JSON</a>
        ${p.termReview ? html`<a href="${ACCOUNT_PATH}/term-review">Review access that outlives the term</a>` : ''}
      </p>
      ${listTable(
        ['App', ...COLUMNS],
        p.rows.map(
          (row) =>
            html`<tr>
              <td data-label="App" class="ids">${rowApp(row)}</td>
              ${rowCells(row)}
            </tr>`,
        ),
        `No app has access to anyone’s account${p.after ? ' beyond the previous page' : ''}.`,
      )}
      ${pageLinks({
        path: `${ACCOUNT_PATH}/register`,
        filters: {},
        cursorParam: 'after',
        current: p.after,
        next: p.next,
        labels: { first: 'First page', next: 'More of the register' },
      })}`,
  );
}

/** What the term review page says after an action, or why it did nothing. */
export interface ReviewNotice {
  error?: string;
  done?: string;
}

/** The term review: the rows that outlive the term, each with a checkbox, and the one action. */
export function termReviewView(p: {
  account: AccountProfile;
  csrf: string;
  /** The term's last day, as set (`SCHOOL_TERM_ENDS`); undefined: none set. */
  termEnds?: string;
  /** When the term's access ends, Unix seconds; undefined when the term is over or none is set. */
  termEndsAt?: number;
  rows: RegisterRow[];
  /** More rows outlive the term than the page shows. */
  more: boolean;
  notice: ReviewNotice;
}): string {
  const body = (): SafeHtml => {
    if (!p.termEnds)
      return html`<p class="card">
        No term end is set, so there is nothing to review. The operator sets it with
        <code>SCHOOL_TERM_ENDS</code>.
      </p>`;
    if (p.termEndsAt === undefined)
      return html`<p class="card">
        The term ended on ${p.termEnds}. Set the next term’s last day (<code>SCHOOL_TERM_ENDS</code>) to
        review access against it.
      </p>`;
    if (!p.rows.length) return html`<p class="card">No app’s access outlives the term.</p>`;
    const rows = p.rows.map((row, i) => {
      const id = `grant-${i}`;
      return html`<tr>
        <td data-label="Select">
          <input
            type="checkbox"
            id="${id}"
            name="grant"
            value="${row.account.id} ${row.app.clientId}"
            aria-label="Select ${row.app.name ?? row.app.clientId} for ${row.account.email}"
          />
        </td>
        <td data-label="App" class="ids">${rowApp(row)}</td>
        ${rowCells(row)}
      </tr>`;
    });
    return html`<form method="post" action="${ACCOUNT_PATH}/term-review">
      <input type="hidden" name="csrf" value="${p.csrf}" />
      ${listTable(['Select', 'App', ...COLUMNS], rows, '')}
      ${
        p.more
          ? html`<p class="note">
              More access outlives the term than fits on this page: act on these, and the page lists the rest.
            </p>`
          : ''
      }
      <fieldset class="choices">
        <legend>With the selected access</legend>
        <ul class="scopes choices">
          <li>
            <input type="radio" id="action-shorten" name="action" value="shorten" checked />
            <label for="action-shorten">Shorten it to end with the term (${when(p.termEndsAt)})</label>
          </li>
          <li>
            <input type="radio" id="action-end" name="action" value="end" />
            <label for="action-end">End it now (as Revoke on Connected apps)</label>
          </li>
          <li>
            <input type="radio" id="action-keep" name="action" value="keep" />
            <label for="action-keep">Keep it as it is (recorded in Activity)</label>
          </li>
        </ul>
      </fieldset>
      <div class="actions"><button type="submit">Apply to the selected access</button></div>
    </form>`;
  };
  return accountPage(
    'Term review',
    p.account,
    'register',
    html`${formNotice(p.notice)}
      <p>
        Access that goes on after the last day of the term${p.termEnds ? html` (${p.termEnds})` : ''}. Select
        what to shorten to the term’s end, end now, or keep.
        <a href="${ACCOUNT_PATH}/register">Back to the Access register</a>
      </p>
      ${body()}`,
  );
}
