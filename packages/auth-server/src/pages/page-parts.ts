/**
 * The pieces every page that shows an app is built from (consent, Connected apps, All clients), so
 * an app reads the same everywhere:
 *
 * - every string a client supplied (its name, its id, the host of its id, its redirect URI) is in its
 *   own `<bdi>`, so whatever direction its characters have cannot reorder the page's own words around
 *   it (open registration refuses bidirectional controls as well: `@school/shared` display-text.ts);
 * - how far its name can be trusted is said in visible words, never only in a tooltip a phone cannot
 *   show, and the name is set no louder than that warning;
 * - the scopes that change or delete data are grouped apart and flagged.
 */
import { findScope, isLoopbackHost } from '@school/shared';
import { verifiedHost, type ClientKind } from '../clients/client-kind.js';
import { html, type SafeHtml } from './html.js';

/** An app as the pages show it. */
export interface AppIdentity {
  /** The name the client registered; `undefined` when it gave none. */
  name?: string;
  clientId: string;
  kind: ClientKind;
  /**
   * Its metadata could not be loaded just now (a metadata document that cannot be used, a stored
   * record that does not read): only its id is known, and the page says so.
   */
  unavailable?: boolean;
}

/** What the kind of an app says about its name, in words. */
export function kindText(app: AppIdentity): SafeHtml {
  switch (app.kind) {
    case 'integration':
      return html`Registered integration: set up by the people who run this school’s sign-in.`;
    case 'metadata-document':
      return html`Published at <bdi>${verifiedHost(app.clientId) ?? app.clientId}</bdi> (checked). The name
        itself was chosen by the app.`;
    case 'service':
      return html`Service set up by the people who run this school’s sign-in: it checks tokens and never signs
      anyone in.`;
    case 'console':
      return html`This school’s own account pages.`;
    default:
      return html`Self-declared name: the app chose this name itself and nobody has checked it.`;
  }
}

/** What a list says once, above its rows, when one of them is an app with a self-declared name. */
export const SELF_DECLARED_NOTE =
  'A self-declared name was chosen by the app itself when it registered: nobody has checked it.';

/**
 * The app's name in a `<bdi>`, with its kind underneath in words at least as prominent. `asking`: the
 * app is asking this person for access right now (sign-in and consent), so an unchecked name comes
 * with what to do about it; lists and the page after Deny only describe. `listed`: a row of a list,
 * in normal weight, a self-declared name in two words ({@link SELF_DECLARED_NOTE}, above the list,
 * says the rest once).
 */
export function appLabel(app: AppIdentity, { asking = false, listed = false } = {}): SafeHtml {
  if (app.unavailable) return unavailableLabel(app);
  const name = app.name?.trim() || 'An unnamed app';
  const unchecked = app.kind === 'open' || app.kind === 'metadata-document';
  const advice = asking && unchecked ? ' Only continue if you started this app yourself.' : '';
  return html`<div class="app">
    <span class="app-name"><bdi>${name}</bdi></span>
    ${
      listed
        ? html`<span class="kind listed kind-${app.kind}"
            >${app.kind === 'open' ? 'Self-declared name' : kindText(app)}</span
          >`
        : html`<span class="kind kind-${app.kind}">${kindText(app)}${advice}</span>`
    }
  </div>`;
}

/** The label of an app whose metadata could not be loaded: what is missing, in words, and its id only. */
function unavailableLabel(app: AppIdentity): SafeHtml {
  const host = verifiedHost(app.clientId);
  const missing = host ? 'Metadata document unavailable' : 'Client record unavailable';
  const why = host
    ? html`Its metadata document at <bdi>${host}</bdi> cannot be used just now, so only its client id is
        known.`
    : html`Its stored record cannot be read, so only its client id is known.`;
  return html`<div class="app">
    <span class="app-name">${missing}</span>
    <span class="kind kind-unavailable">${why}</span>
  </div>`;
}

/** Where the browser goes afterwards, in words: "an app on this computer (127.0.0.1, port 5173)". */
export function destinationText(redirectUri: string): string {
  const url = URL.parse(redirectUri);
  if (!url) return redirectUri;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return isLoopbackHost(url.hostname)
    ? `an app on this computer (${url.hostname}, port ${port})`
    : `${url.host} (port ${port})`;
}

/** One scope in plain words, its name small beside it. */
function scopeItem(name: string): SafeHtml {
  return html`<li>${findScope(name)?.consentText ?? name} <code>${name}</code></li>`;
}

/**
 * The scopes in plain words, in two groups: what the app may only see, and (flagged) what it may
 * create, change or delete.
 */
export function scopeGroups(scopes: readonly string[]): SafeHtml {
  const writes = scopes.filter((s) => findScope(s)?.changesData);
  const reads = scopes.filter((s) => !findScope(s)?.changesData);
  return html`${
    reads.length
      ? html`<p class="group">See (read only):</p>
          <ul class="scopes">
            ${reads.map(scopeItem)}
          </ul>`
      : ''
  }
  ${
    writes.length
      ? html`<p class="group writes"><span class="flag">Changes data</span> Create, change and delete:</p>
          <ul class="scopes writes">
            ${writes.map(scopeItem)}
          </ul>`
      : ''
  }`;
}
