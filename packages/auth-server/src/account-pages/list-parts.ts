/**
 * The parts the admins' list pages (All clients, Activity) are built from: a GET form's optional
 * fields (a value that does not read reads as absent, never an error page; All clients says which),
 * a table whose rows turn into cards at phone width (each cell labelled by `data-label`,
 * pages/html.ts), and the paging links that keep the filters.
 */
import type { z } from 'zod';
import { html, type SafeHtml } from '../pages/html.js';

/** An optional field of a list page's GET form: a value that does not parse reads as absent. */
export const optionalParam = <T extends z.ZodTypeAny>(schema: T) => schema.optional().catch(undefined);

/** A table with these column headings and rows, or `empty` when there are no rows. */
export function listTable(columns: readonly string[], rows: SafeHtml[], empty: string): SafeHtml {
  if (!rows.length) return html`<p class="card">${empty}</p>`;
  return html`<table>
    <thead>
      <tr>
        ${columns.map((c) => html`<th scope="col">${c}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

/**
 * The paging links of a list at `path`: back to the first page when this is not it, and on to the
 * next with `filters` kept and the cursor in `cursorParam`.
 */
export function pageLinks(p: {
  path: string;
  filters: Record<string, string | number | undefined>;
  cursorParam: string;
  current?: string;
  next?: string;
  labels: { first: string; next: string };
}): SafeHtml {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(p.filters)) if (v !== undefined && v !== '') params.set(k, String(v));
  if (p.next) params.set(p.cursorParam, p.next);
  return html`<p class="actions">
    ${p.current ? html`<a href="${p.path}">${p.labels.first}</a>` : ''}
    ${p.next ? html`<a href="${p.path}?${params.toString()}">${p.labels.next}</a>` : ''}
  </p>`;
}
