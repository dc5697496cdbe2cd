/**
 * The "For how long?" radios of a form that grants access (the consent page, the device pairing
 * page; access-duration.ts). The end is the whole grant's: on a first consent "until I take it back"
 * is preselected unless the page names another choice; when the app holds access already (a repeat or
 * step-up consent) the page says when that access ends now and preselects keeping that end, and every
 * other choice says that it moves the end, sooner or later, of everything the app was allowed.
 */
import { html, type SafeHtml } from '../pages/html.js';
import { KEEP_END, schoolTime, type DurationChoice } from './access-duration.js';

function radio(value: string, checked: boolean, label: SafeHtml | string, note: SafeHtml): SafeHtml {
  return html`<li>
    <input
      type="radio"
      id="duration-${value}"
      name="duration"
      value="${value}"
      ${checked ? html`checked` : ''}
    />
    <label for="duration-${value}">${label} <span class="note">${note}</span></label>
  </li>`;
}

/** What choosing `d` does to access that ends at `currentEnd` now. */
function changeNote(d: DurationChoice, currentEnd: number): string {
  if (d.ends < currentEnd) return ' — ends all of its access sooner';
  if (d.ends > currentEnd) return ' — extends all of its access';
  return '';
}

/**
 * The fieldset for `durations` (shortest first), its times in `timezone`; `currentEnd`: when the
 * access the app holds ends now (Unix seconds), absent on a first consent; `preselected`: the index
 * of the choice selected at first on a first consent (default: the last, the longest).
 */
export function durationFieldset(p: {
  durations: readonly DurationChoice[];
  timezone: string;
  currentEnd?: number;
  preselected?: number;
}): SafeHtml {
  const { currentEnd, timezone } = p;
  const preselected = p.preselected ?? p.durations.length - 1;
  const until = (d: DurationChoice) =>
    html`${d.value === 'revoked' ? 'or until the school’s limit,' : 'until'} ${schoolTime(d.ends, timezone)}`;
  return html`<fieldset class="choices durations">
    <legend>For how long?</legend>
    ${
      currentEnd === undefined
        ? ''
        : html`<p class="current-end">
            Access currently ends <strong>${schoolTime(currentEnd, timezone)}</strong>, for everything this
            app may do.
          </p>`
    }
    <ul class="scopes choices">
      ${
        currentEnd === undefined
          ? ''
          : radio(KEEP_END, true, 'Keep this end', html`until ${schoolTime(currentEnd, timezone)}`)
      }
      ${p.durations.map((d, i) =>
        radio(
          d.value,
          currentEnd === undefined && i === preselected,
          d.label,
          html`${until(d)}${currentEnd === undefined ? '' : changeNote(d, currentEnd)}`,
        ),
      )}
    </ul>
    ${
      currentEnd === undefined
        ? ''
        : html`<p class="note">
            Choosing another end changes it for all of this app’s access, also for what you allowed before.
          </p>`
    }
    <p class="note">Times are the school’s (${timezone}).</p>
  </fieldset>`;
}
