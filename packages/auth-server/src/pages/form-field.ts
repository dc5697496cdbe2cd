/**
 * A labelled input as every form of the pages writes it: the label, the input (required unless
 * optional), and a hint the input is described by. One shape, so a label always names its input and
 * a hint is always read out with it.
 */
import { html, type SafeHtml } from './html.js';

/** What one field is. `attributes` carries the rest (`minlength`, `spellcheck`, …). */
export interface FormField {
  id: string;
  label: string;
  /** The form field's name; the id by default. */
  name?: string;
  type?: 'text' | 'email' | 'password';
  autocomplete: string;
  value?: string;
  hint?: string;
  optional?: boolean;
  attributes?: SafeHtml;
}

/** The label, input and hint of `f`. */
export function formField(f: FormField): SafeHtml {
  const hintId = f.hint ? `${f.id}-hint` : undefined;
  return html`<label for="${f.id}">${f.label}</label>
    <input
      id="${f.id}"
      type="${f.type ?? 'text'}"
      name="${f.name ?? f.id}"
      autocomplete="${f.autocomplete}"
      ${f.attributes ?? ''}
      ${hintId ? html`aria-describedby="${hintId}"` : ''}
      ${f.optional ? '' : html`required`}
      ${f.value === undefined ? '' : html`value="${f.value}"`}
    />
    ${hintId ? html`<p id="${hintId}" class="note">${f.hint}</p>` : ''}`;
}
