/**
 * The page an unreviewed app's authorization ends on while the school reviews new apps first
 * (APP_REVIEW_UNREVIEWED=ask-admin, app-review.ts): who asks, and one button that asks the admins
 * to review it; the other sends the person back to the app without asking.
 */
import { html, layout } from '../pages/html.js';
import { appLabel } from '../pages/page-parts.js';
import type { ClientView } from './views.js';

/** What the page shows: the app, the two forms, and what became of an earlier click. */
export function reviewFirstPage(p: {
  client: ClientView;
  requestAction: string;
  abortAction: string;
  csrf: string;
  /** The admins have too many requests waiting: this one was not recorded. */
  tooMany?: boolean;
}): string {
  const csrf = html`<input type="hidden" name="csrf" value="${p.csrf}" />`;
  return layout(
    'Your school reviews new apps first',
    html`<h1>Your school reviews new apps first</h1>
      <p>This app is asking for access to your school:</p>
      ${appLabel(p.client, { asking: true })}
      <p>
        No admin of your school has reviewed it yet. Ask the admins to review it: once they allow it, connect
        it again from the app. The app is told that a review was requested.
      </p>
      ${
        p.tooMany
          ? html`<p class="error" role="alert">
              Your school’s admins have too many review requests waiting, so this one was not recorded. Ask
              one of them directly.
            </p>`
          : ''
      }
      <div class="actions">
        <form method="post" action="${p.requestAction}">
          ${csrf}
          <button type="submit">Ask the admins to review this app</button>
        </form>
        <form method="post" action="${p.abortAction}">
          ${csrf}
          <button type="submit" class="secondary">Go back without asking</button>
        </form>
      </div>`,
  );
}
