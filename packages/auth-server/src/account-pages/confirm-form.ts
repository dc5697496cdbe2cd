/**
 * The end of every confirmation page of the account pages: the form that does what the page asks
 * about (its CSRF token, the id of what it acts on, a red button) and the link back that does nothing.
 */
import { html, type SafeHtml } from '../pages/html.js';

/** The form posting to `action`, with `target` (a hidden field naming what it acts on) when given. */
export function confirmForm(p: {
  action: string;
  csrf: string;
  target?: { name: string; value: string };
  button: string;
  cancel: { href: string; text: string };
}): SafeHtml {
  return html`<form method="post" action="${p.action}">
      <input type="hidden" name="csrf" value="${p.csrf}" />
      ${p.target ? html`<input type="hidden" name="${p.target.name}" value="${p.target.value}" />` : ''}
      <button type="submit" class="danger">${p.button}</button>
    </form>
    <p><a href="${p.cancel.href}">${p.cancel.text}</a></p>`;
}
