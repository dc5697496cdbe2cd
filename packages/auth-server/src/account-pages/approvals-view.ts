/**
 * The Approvals page (approvals.ts): each request waiting for a decision, who asked, for which app
 * (its name, client id, kind, a metadata document's domain), which scopes, how long they asked for and
 * when; the admin approves all or some of the scopes for a number of days, or denies, with a note. The
 * latest decisions are listed under it.
 */
import { ACCOUNT_PATH, findScope } from '@school/shared';
import type { AccountProfile } from '../accounts/account-store.js';
import { statusOf, type ApprovalRequest } from '../accounts/approval-requests.js';
import { html, type SafeHtml } from '../pages/html.js';
import { appLabel } from '../pages/page-parts.js';
import { listTable } from './list-parts.js';
import { accountPage, formNotice, when } from './views.js';

/** How long an approval may last, in days, as the form offers it (the first is preselected). */
export const APPROVAL_DAYS = ['30', '7', '1', '90', '365'] as const;

const DAYS_WORDS: Record<(typeof APPROVAL_DAYS)[number], string> = {
  '1': '1 day',
  '7': '7 days',
  '30': '30 days',
  '90': '90 days',
  '365': 'A year',
};

/** The "how long" answer of the consent page, in words. */
const DURATION_WORDS: Record<string, string> = {
  hour: 'An hour',
  today: 'Today',
  week: 'This week',
  term: 'This term',
  revoked: 'Until taken back',
  current: 'Keep the current end',
};

function scopeBox(request: string, scope: string): SafeHtml {
  const id = `approve-${request}-${scope.replace(/[^a-z]/g, '-')}`;
  return html`<li>
    <input type="checkbox" id="${id}" name="scope" value="${scope}" checked />
    <label for="${id}">${findScope(scope)?.consentText ?? scope} <code>${scope}</code></label>
  </li>`;
}

function requestCard(r: ApprovalRequest, csrf: SafeHtml): SafeHtml {
  const heading = `request-${r._id}`;
  return html`<section class="card" aria-labelledby="${heading}">
    <h2 id="${heading}">Request from <bdi>${r.accountEmail}</bdi></h2>
    ${appLabel({ name: r.clientName, clientId: r.clientId, kind: r.clientKind })}
    <dl>
      <dt>Client id</dt>
      <dd>
        <code><bdi>${r.clientId}</bdi></code>
      </dd>
      ${
        r.clientDomain
          ? html`<dt>Domain</dt>
              <dd><bdi>${r.clientDomain}</bdi></dd>`
          : ''
      }
      <dt>How long they asked for</dt>
      <dd>${DURATION_WORDS[r.duration] ?? r.duration}</dd>
      <dt>Asked</dt>
      <dd>${when(r.requestedAt)}</dd>
      <dt>Expires unless decided</dt>
      <dd>${when(r.expiresAt)}</dd>
    </dl>
    <form method="post" action="${ACCOUNT_PATH}/approvals/decide">
      ${csrf}
      <input type="hidden" name="request" value="${r._id}" />
      <fieldset class="choices">
        <legend>Let them allow this app to</legend>
        <ul class="scopes choices">
          ${r.scopes.map((s) => scopeBox(r._id, s))}
        </ul>
      </fieldset>
      <label for="days-${r._id}">For</label>
      <select id="days-${r._id}" name="days">
        ${APPROVAL_DAYS.map((d) => html`<option value="${d}">${DAYS_WORDS[d]}</option>`)}
      </select>
      <label for="note-${r._id}">Note to them (optional)</label>
      <textarea id="note-${r._id}" name="note" rows="2" maxlength="500"></textarea>
      <div class="actions">
        <button type="submit" name="decision" value="approve">Approve ticked</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </div>
    </form>
  </section>`;
}

const STATUS_WORDS = { pending: 'Waiting', approved: 'Approved', denied: 'Denied', expired: 'Expired' };

/** The page. */
export function approvalsPage(p: {
  account: AccountProfile;
  csrf: string;
  pending: ApprovalRequest[];
  recent: ApprovalRequest[];
  error?: string;
  done?: string;
}): string {
  const csrf = html`<input type="hidden" name="csrf" value="${p.csrf}" />`;
  const decided = p.recent.filter((r) => statusOf(r) !== 'pending');
  return accountPage(
    'Approvals',
    p.account,
    'approvals',
    html`${formNotice(p)}
      <p>
        When an app asks someone for more than their role lets them allow (<a href="${ACCOUNT_PATH}/roles"
          >Roles</a
        >), they can ask an admin. Approved scopes are theirs to allow that app the next time it connects, for
        as long as you choose.
      </p>
      ${
        p.pending.length
          ? p.pending.map((r) => requestCard(r, csrf))
          : html`<p class="ok" role="status">Nobody is waiting for a decision.</p>`
      }
      ${
        decided.length
          ? html`<h2>Latest decisions</h2>
              ${listTable(
                ['Who', 'App', 'Scopes', 'Decision', 'Note'],
                decided.map(
                  (r) =>
                    html`<tr>
                      <td data-label="Who"><bdi>${r.accountEmail}</bdi></td>
                      <td data-label="App"><bdi>${r.clientName || r.clientId}</bdi></td>
                      <td data-label="Scopes">
                        ${(r.approvedScopes ?? r.scopes).map((s) => html`<code>${s}</code> `)}
                      </td>
                      <td data-label="Decision">
                        ${STATUS_WORDS[statusOf(r)]}${r.decidedAt ? html`, ${when(r.decidedAt)}` : ''}
                        ${r.approvedUntil ? html`<br />until ${when(r.approvedUntil)}` : ''}
                      </td>
                      <td data-label="Note">${r.note ?? ''}</td>
                    </tr>`,
                ),
                '',
              )}`
          : ''
      }`,
  );
}
