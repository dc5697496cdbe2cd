/**
 * The App reviews page (app-reviews.ts): the requests waiting for a review, the apps and domains the
 * school reviewed, and the form that reviews one. Every action is one small POST form; the app's
 * name is isolated and labelled as on every page (pages/page-parts.ts).
 */
import { ACCOUNT_PATH } from '@school/shared';
import type { AccountProfile } from '../accounts/account-store.js';
import type { ClientKind } from '../clients/client-kind.js';
import { formField } from '../pages/form-field.js';
import { html, type SafeHtml } from '../pages/html.js';
import { appLabel } from '../pages/page-parts.js';
import type { ReviewRequest } from '../storage/app-review-requests.js';
import type { AppReview, UnreviewedMeans } from '../storage/app-reviews.js';
import { listTable } from './list-parts.js';
import { accountPage, formNotice, when } from './views.js';

/** Where the page's forms post. */
export const REVIEW_ACTION = `${ACCOUNT_PATH}/app-reviews`;

/** One review button: a form naming the target and the review. */
function reviewButton(p: {
  csrf: string;
  target: 'client' | 'domain';
  value: string;
  review: 'allowed' | 'blocked' | 'unreviewed';
  label: string;
  /** What a screen reader hears, naming the app (the visible label alone repeats on every row). */
  ariaLabel: string;
  danger?: boolean;
}): SafeHtml {
  return html`<form method="post" action="${REVIEW_ACTION}">
    <input type="hidden" name="csrf" value="${p.csrf}" />
    <input type="hidden" name="target" value="${p.target}" />
    <input type="hidden" name="value" value="${p.value}" />
    <input type="hidden" name="review" value="${p.review}" />
    <button type="submit" class="${p.danger ? 'danger' : 'secondary'}" aria-label="${p.ariaLabel}">
      ${p.label}
    </button>
  </form>`;
}

const KIND_WORDS: Record<string, string> = {
  open: 'Registered itself',
  'metadata-document': 'Metadata document',
  integration: 'Integration',
};

function requestRow(r: ReviewRequest, csrf: string): SafeHtml {
  const shown = r.name ?? r.clientId;
  const app = { clientId: r.clientId, name: r.name, kind: r.kind as ClientKind };
  const askers = r.askers.map((a) => a.email);
  const more = r.asked - askers.length;
  return html`<tr>
    <td data-label="App" class="ids">
      ${appLabel(app)}
      <span class="note">Client id <bdi>${r.clientId}</bdi></span>
    </td>
    <td data-label="Kind">
      ${KIND_WORDS[r.kind] ?? r.kind}${r.domain ? html`<br /><bdi>${r.domain}</bdi>` : ''}
    </td>
    <td data-label="Asked by">
      ${askers.map((e, i) => html`${i ? ', ' : ''}<bdi>${e}</bdi>`)}${more > 0 ? ` and ${more} more` : ''}
    </td>
    <td data-label="First asked">${when(r.at)}</td>
    <td data-label="Review">
      <div class="actions">
        ${reviewButton({ csrf, target: 'client', value: r.clientId, review: 'allowed', label: 'Allow', ariaLabel: `Allow ${shown}` })}
        ${reviewButton({ csrf, target: 'client', value: r.clientId, review: 'blocked', label: 'Block', ariaLabel: `Block ${shown}`, danger: true })}
        ${
          r.domain
            ? html`${reviewButton({ csrf, target: 'domain', value: r.domain, review: 'allowed', label: 'Allow its domain', ariaLabel: `Allow its domain, ${r.domain}` })}
              ${reviewButton({ csrf, target: 'domain', value: r.domain, review: 'blocked', label: 'Block its domain', ariaLabel: `Block its domain, ${r.domain}`, danger: true })}`
            : ''
        }
      </div>
    </td>
  </tr>`;
}

function reviewRow(r: AppReview, csrf: string): SafeHtml {
  const shown = r.target === 'domain' ? r.value : (r.name ?? r.value);
  return html`<tr>
    <td data-label="App or domain" class="ids">
      ${
        r.target === 'domain'
          ? html`Every app of the domain <bdi><strong>${r.value}</strong></bdi>`
          : html`${r.name ? html`<bdi>${r.name}</bdi><br />` : ''}<span class="note"
                >Client id <bdi>${r.value}</bdi></span
              >`
      }
    </td>
    <td data-label="Review"><strong>${r.review === 'blocked' ? 'Blocked' : 'Allowed'}</strong></td>
    <td data-label="By"><bdi>${r.by}</bdi>, ${when(r.at)}</td>
    <td data-label="Change">
      <div class="actions">
        ${
          r.review === 'blocked'
            ? reviewButton({
                csrf,
                target: r.target,
                value: r.value,
                review: 'allowed',
                label: 'Allow',
                ariaLabel: `Allow ${shown}`,
              })
            : reviewButton({
                csrf,
                target: r.target,
                value: r.value,
                review: 'blocked',
                label: 'Block',
                ariaLabel: `Block ${shown}`,
                danger: true,
              })
        }
        ${reviewButton({ csrf, target: r.target, value: r.value, review: 'unreviewed', label: 'Remove review', ariaLabel: `Remove review of ${shown}` })}
      </div>
    </td>
  </tr>`;
}

/** What the page says after a review, or what went wrong. */
export interface ReviewNotice {
  done?: string;
  error?: string;
  /** What was typed into the review form, kept after a refusal. */
  typed?: { target: string; value: string };
}

/** The App reviews page. */
export function appReviewsPage(p: {
  account: AccountProfile;
  csrf: string;
  requests: ReviewRequest[];
  reviews: AppReview[];
  unreviewed: UnreviewedMeans;
  notice?: ReviewNotice;
}): string {
  const typed = p.notice?.typed;
  const setting =
    p.unreviewed === 'ask-admin'
      ? 'An app nobody has reviewed cannot connect: the person connecting it can ask you to review it, and the request is listed here.'
      : 'An app nobody has reviewed connects as an allowed app does. Block the ones the school does not want.';
  return accountPage(
    'App reviews',
    p.account,
    'app-reviews',
    html`${formNotice(p.notice ?? {})}
      <p>
        Allow or block the apps that connect to the school. Blocking an app ends its access for every account
        at once, and it cannot connect again until it is allowed. ${setting}
      </p>
      <h2 id="requests">Waiting for a review</h2>
      ${listTable(
        ['App', 'Kind', 'Asked by', 'First asked', 'Review'],
        p.requests.map((r) => requestRow(r, p.csrf)),
        'No one is waiting for a review.',
      )}
      <h2 id="reviewed">Reviewed apps and domains</h2>
      ${listTable(
        ['App or domain', 'Review', 'By', 'Change'],
        p.reviews.map((r) => reviewRow(r, p.csrf)),
        'No app has been reviewed yet.',
      )}
      <h2 id="review">Review an app</h2>
      <form method="post" action="${REVIEW_ACTION}" class="card" aria-labelledby="review">
        <input type="hidden" name="csrf" value="${p.csrf}" />
        <label for="target">What to review</label>
        <select id="target" name="target">
          <option value="client" ${typed?.target === 'domain' ? '' : 'selected'}>
            One app, by its client id
          </option>
          <option value="domain" ${typed?.target === 'domain' ? 'selected' : ''}>
            Every metadata-document app of a domain
          </option>
        </select>
        ${formField({
          id: 'value',
          label: 'Client id or domain',
          type: 'text',
          autocomplete: 'off',
          attributes: html`spellcheck="false" maxlength="2000"`,
          hint: 'A client id as All clients shows it, or a domain such as example.com (it covers its subdomains too).',
          ...(typed ? { value: typed.value } : {}),
        })}
        <div class="actions">
          <button type="submit" name="review" value="allowed">Allow</button>
          <button type="submit" name="review" value="blocked" class="danger">Block</button>
        </div>
      </form>`,
  );
}
