/**
 * The consent page's scopes as checkboxes (`name="scope"`), grouped like every other list of scopes
 * (page-parts.ts): what the app may only see, then, flagged, what it may change. The admin unticks
 * what the app shall not have. For an app nobody vouched for (`selfDeclared`), the scopes that change
 * data start unticked, so allowing it as it comes grants reading only. A scope the admin refused this
 * app before starts unticked too, marked so: asking again does not undo a refusal unless the admin
 * ticks it. `openid` is no choice: it only
 * tells the app who signed in, and an app that asked for it cannot sign anyone in without it. Beside
 * each scope, the kind of school data it reaches (its data category, `@school/shared` scopes.ts), in
 * the words Connected apps and the Access register use.
 */
import { DATA_CATEGORIES, findScope } from '@school/shared';
import { html, type SafeHtml } from '../pages/html.js';

/**
 * The scopes that start ticked: all, except those that change data for a self-declared app and those
 * refused before.
 */
export function initiallyTicked(
  scopes: readonly string[],
  selfDeclared: boolean,
  refusedBefore: readonly string[] = [],
): string[] {
  const refused = new Set(refusedBefore);
  return scopes.filter(
    (s) => s !== 'openid' && !refused.has(s) && !(selfDeclared && findScope(s)?.changesData),
  );
}

function choice(name: string, ticked: boolean, refusedBefore: boolean): SafeHtml {
  const id = `scope-${name.replace(/[^a-z]/g, '-')}`;
  const refused = refusedBefore ? html` <span class="note refused">You refused this before.</span>` : '';
  const scope = findScope(name);
  const category = scope ? html` <span class="note category">${DATA_CATEGORIES[scope.category]}</span>` : '';
  return html`<li>
    <input type="checkbox" id="${id}" name="scope" value="${name}" ${ticked ? html`checked` : ''} />
    <label for="${id}">${scope?.consentText ?? name} <code>${name}</code>${category}${refused}</label>
  </li>`;
}

/** The checkboxes for `scopes`, `openid` listed without one; `refusedBefore` start unticked, marked. */
export function scopeChoices(
  scopes: readonly string[],
  selfDeclared: boolean,
  refusedBefore: readonly string[] = [],
): SafeHtml {
  const start = new Set(initiallyTicked(scopes, selfDeclared, refusedBefore));
  const refused = new Set(refusedBefore);
  const writes = scopes.filter((s) => findScope(s)?.changesData);
  const reads = scopes.filter((s) => s !== 'openid' && !findScope(s)?.changesData);
  return html`${
    scopes.includes('openid')
      ? html`<p class="group">Always included:</p>
          <ul class="scopes">
            <li>${findScope('openid')!.consentText} <code>openid</code></li>
          </ul>`
      : ''
  }
  ${
    reads.length
      ? html`<p class="group">See (read only):</p>
          <ul class="scopes choices">
            ${reads.map((s) => choice(s, start.has(s), refused.has(s)))}
          </ul>`
      : ''
  }
  ${
    writes.length
      ? html`<p class="group writes"><span class="flag">Changes data</span> Create, change and delete:</p>
          ${
            selfDeclared
              ? html`<p class="note">
                  Nobody has checked this app, so these start unticked. Tick only what you want it to do.
                </p>`
              : ''
          }
          <ul class="scopes choices writes">
            ${writes.map((s) => choice(s, start.has(s), refused.has(s)))}
          </ul>`
      : ''
  }`;
}

/**
 * What the app asked that the signer may not grant by themself (interactions/ceilings.ts), listed
 * apart from the choices, with `askButton` (Ask an admin): nothing when there is none.
 */
export function needsAdmin(scopes: readonly string[], askButton: SafeHtml): SafeHtml {
  if (!scopes.length) return html``;
  return html`<section class="needs-admin" aria-labelledby="needs-admin-heading">
    <h2 id="needs-admin-heading">Needs an admin’s approval</h2>
    <p>Your role does not let you allow these by yourself:</p>
    <ul class="scopes">
      ${scopes.map((s) => html`<li>${findScope(s)?.consentText ?? s} <code>${s}</code></li>`)}
    </ul>
    <p class="note">
      Ask an admin, and the app is told that you asked. Once an admin approves, connect the app again and you
      can allow them.
    </p>
    ${askButton}
  </section>`;
}
