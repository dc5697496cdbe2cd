/**
 * A form the passkey script (passkeys/page-script.ts) runs a WebAuthn ceremony on, as every page with
 * a passkey writes it: `data-passkey` names the ceremony, `data-options` carries its options, the
 * hidden `response` field takes the browser's answer, and the status line says what went wrong.
 */
import { html, type SafeHtml } from './html.js';

/** What one passkey form is: where it posts, its ceremony and options, and its CSRF field. */
export interface PasskeyForm {
  action: string;
  ceremony: 'sign-in' | 'register';
  /** The ceremony's options as JSON (empty when there are none yet). */
  options: string;
  csrf: SafeHtml;
}

/** The form of `f` with `fields` (its other fields and its button) before the status line. */
export function passkeyForm(f: PasskeyForm, fields: SafeHtml): SafeHtml {
  return html`<form
    method="post"
    action="${f.action}"
    data-passkey="${f.ceremony}"
    data-options="${f.options}"
  >
    ${f.csrf}
    <input type="hidden" name="response" value="" />
    ${fields}
    <p class="note" role="status" data-passkey-status></p>
  </form>`;
}
