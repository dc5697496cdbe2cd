/**
 * The "For how long?" part of a form that grants access (the consent page, the device pairing page):
 * each choice of access-duration.ts as a radio button with when it ends in the school's time zone.
 */
import { html, type SafeHtml } from '../pages/html.js';
import { schoolTime, type DurationChoice } from './access-duration.js';

/** The fieldset; `checked`: the index of the choice selected at first. */
export function durationFieldset(
  durations: readonly DurationChoice[],
  timezone: string,
  checked: number,
): SafeHtml {
  return html`<fieldset class="choices durations">
    <legend>For how long?</legend>
    <ul class="scopes choices">
      ${durations.map(
        (d, i) =>
          html`<li>
            <input
              type="radio"
              id="duration-${d.value}"
              name="duration"
              value="${d.value}"
              ${i === checked ? html`checked` : ''}
            />
            <label for="duration-${d.value}"
              >${d.label}
              <span class="note"
                >${d.value === 'revoked' ? 'or until the school’s limit,' : 'until'}
                ${schoolTime(d.ends, timezone)}</span
              ></label
            >
          </li>`,
      )}
    </ul>
    <p class="note">Times are the school’s (${timezone}).</p>
  </fieldset>`;
}
