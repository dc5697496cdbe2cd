/**
 * The device pairing pages (`/oauth/device`): where a signed-in person types the code a device shows,
 * then sees what asks and from where before allowing it. Each page says the one rule that defeats
 * device-code phishing: only enter a code that a device in front of you shows, never one someone sent.
 */
import { ACCOUNT_PATH, OAUTH_ROUTES } from '@school/shared';
import type { DurationChoice } from '../interactions/access-duration.js';
import { durationFieldset } from '../interactions/duration-fieldset.js';
import { needsAdmin, scopeChoices } from '../interactions/scope-choices.js';
import { html, layout, type SafeHtml } from '../pages/html.js';
import { appLabel, type AppIdentity } from '../pages/page-parts.js';
import type { Nearness } from './network-distance.js';

const ACTION = OAUTH_ROUTES.code_verification;

const neverSent = html`<p class="note">
  Only enter a code that an app or agent <strong>you started yourself</strong> shows you on a screen in front
  of you. Never enter a code that someone sent you by email, chat or phone, even if they say they are from the
  school: it would give them access to your account.
</p>`;

const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}" />`;

/** The form to type a code into; `problem`: why the last code was refused. */
export function enterCodePage(p: { csrf: string; email: string; problem?: string }): string {
  return layout(
    'Pair a device',
    html`<h1>Pair a device</h1>
      <p>
        Signed in as <strong><bdi>${p.email}</bdi></strong
        >.
      </p>
      ${p.problem ? html`<p class="error" role="alert">${p.problem}</p>` : ''}
      <form method="post" action="${ACTION}">
        ${csrfField(p.csrf)}
        <input type="hidden" name="step" value="enter" />
        <label for="user_code">Code shown by your device</label>
        <input
          type="text"
          id="user_code"
          name="user_code"
          autocomplete="off"
          autocapitalize="characters"
          spellcheck="false"
          maxlength="32"
          placeholder="BCDF-GHJK"
          required
        />
        <button type="submit">Continue</button>
      </form>
      ${neverSent}`,
  );
}

/** This account has a passkey: pairing a device needs a passkey sign-in first. */
export function passkeyFirstPage(signInHref: string): string {
  return layout(
    'Sign in with your passkey',
    html`<h1>Sign in with your passkey first</h1>
      <p>
        Your account has a passkey, so pairing a device needs a sign-in with it: a code someone sent you
        cannot then be approved with only your password.
      </p>
      <p><a class="button" href="${signInHref}">Sign in with your passkey</a></p>`,
  );
}

/** Where the request came from, in words, with the warning when it is not the approver's network. */
function origin(p: {
  requestedFrom?: string;
  userAgent?: string;
  nearness: Nearness;
  approver: string;
  ago: string;
}): SafeHtml {
  const warning =
    p.nearness === 'elsewhere' || p.nearness === 'unknown'
      ? html`<p class="error" role="alert">
          <strong>This request did not come from the network you are on now.</strong> It came from
          <bdi>${p.requestedFrom ?? 'an unknown address'}</bdi>; you are at <bdi>${p.approver}</bdi>. That is
          expected only for an agent of yours running elsewhere (a server over SSH, a Codespace, a container
          in the cloud). If you did not start it yourself just now, someone may be trying to get into your
          account: choose Deny.
        </p>`
      : '';
  return html`<dl class="facts">
      <dt>Asked from</dt>
      <dd>
        <bdi>${p.requestedFrom ?? 'unknown'}</bdi>
        ${
          p.nearness === 'same-address'
            ? '(the same address as this browser)'
            : p.nearness === 'same-network'
              ? '(the same network as this browser)'
              : ''
        }
      </dd>
      ${
        p.userAgent
          ? html`<dt>Program (as it names itself)</dt>
              <dd><bdi>${p.userAgent}</bdi></dd>`
          : ''
      }
      <dt>Asked</dt>
      <dd>${p.ago}</dd>
    </dl>
    ${warning}`;
}

/** The confirmation page: the app, where and when it asked, the scopes and how long, Allow or Deny. */
export function confirmPairingPage(p: {
  csrf: string;
  userCode: string;
  client: AppIdentity & { selfDeclared: boolean };
  scopes: readonly string[];
  /** What the device asked beyond what the signer may grant: listed apart, with Ask an admin. */
  needsAdmin?: readonly string[];
  durations: readonly DurationChoice[];
  timezone: string;
  requestedFrom?: string;
  userAgent?: string;
  approver: string;
  nearness: Nearness;
  ago: string;
  email: string;
}): string {
  const hidden = html`${csrfField(p.csrf)}<input type="hidden" name="user_code" value="${p.userCode}" />`;
  return layout(
    'Pair this device?',
    html`<h1>Pair this device with your account?</h1>
      <p>
        Signed in as <strong><bdi>${p.email}</bdi></strong
        >. Code <code>${p.userCode}</code> belongs to:
      </p>
      ${appLabel(p.client, { asking: true })}
      <p class="note">
        Client id: <code><bdi>${p.client.clientId}</bdi></code>
      </p>
      ${origin(p)}
      <form method="post" action="${ACTION}" id="allow">
        ${hidden}
        <fieldset class="choices">
          <legend>It will be able to</legend>
          ${scopeChoices(p.scopes, p.client.selfDeclared)}
          <p class="note">
            Untick anything you do not want it to have. Unticking everything is the same as Deny.
          </p>
        </fieldset>
        ${durationFieldset({ durations: p.durations, timezone: p.timezone, preselected: 0 })}
        <div class="actions">
          <button type="submit" name="step" value="approve">Allow</button>
          <button type="submit" form="deny" class="secondary">Deny</button>
        </div>
      </form>
      <form method="post" action="${ACTION}" id="deny">
        ${hidden}
        <input type="hidden" name="step" value="deny" />
      </form>
      ${
        // Ask an admin submits the Allow form, so the request records the duration chosen there.
        p.needsAdmin?.length
          ? needsAdmin(
              p.needsAdmin,
              html`<button type="submit" form="allow" name="step" value="ask-admin" class="secondary">
                Ask an admin
              </button>`,
            )
          : ''
      }
      ${neverSent}`,
  );
}

/** The page after Allow or Deny. */
export function pairingDonePage(approved: boolean): string {
  return layout(
    approved ? 'Device paired' : 'Pairing denied',
    approved
      ? html`<h1>Device paired</h1>
          <p class="ok" role="status">Done. Go back to your device: it continues by itself.</p>
          <p class="note">
            You can take its access back at any time on <a href="${ACCOUNT_PATH}/apps">Connected apps</a>.
          </p>`
      : html`<h1>Pairing denied</h1>
          <p class="ok" role="status">The device was told no. It got no access to your account.</p>`,
  );
}
