/**
 * The error pages: what a browser on `/oauth/…` (the authorization endpoint, login and consent) is
 * shown when something goes wrong, in words a school admin can act on; the wire code is shown small,
 * for whoever they report it to.
 *
 * - Every error of the table (`@school/shared` oauth-errors.ts) thrown on a browser route, the
 *   interactions' own refusals among them ({@link InteractionGone}, {@link FormRejected}): the error
 *   guard (http/error-guard.ts) answers them with {@link renderErrorPage}.
 * - oidc-provider's `renderError` for the browser-facing routes (provider/render-error.ts): errors at
 *   the authorization endpoint that cannot be sent back to the client (unknown client, unregistered
 *   redirect URI), with {@link renderProviderErrorPage}. JSON endpoints answer JSON whatever the
 *   `Accept` header says (RFC 6749 §5.2), so only these routes get a page.
 */
import { ACCOUNT_PATH, OAuthError } from '@school/shared';
import type { Context, Next } from 'koa';
import type { ErrorOut } from 'oidc-provider';
import { html, layout, pageCsp } from './html.js';

/** An error of these pages with its fixed status, code and description, thrown as `new X()`. */
function pageError(status: number, code: string, description: string) {
  return class extends OAuthError {
    constructor() {
      super(status, code, description);
    }
  };
}

/** 400 `interaction_expired`: the interaction is expired, used, or not this browser's. */
export class InteractionGone extends pageError(
  400,
  'interaction_expired',
  'this sign-in page has expired or was already used; start again',
) {}

/** 403 `csrf_check_failed`: the form was not sent from this interaction's page. */
export class FormRejected extends pageError(
  403,
  'csrf_check_failed',
  'the form was not sent from this sign-in page',
) {}

/** 403 `admins_only`: an account page only the school's admins may use (account-pages/require-admin.ts). */
export class AdminsOnly extends pageError(403, 'admins_only', 'this page is for the school’s admins') {}

/**
 * 403 `app_blocked`: the school blocked the app asking (storage/app-reviews.ts). Answered as a page
 * on the authorization endpoint and the sign-in and consent pages; never sent back to the app.
 */
export class AppBlocked extends pageError(403, 'app_blocked', 'the school has blocked this app') {}

/** The first step of every interaction route: nothing on these pages may be cached. */
export async function noStore(ctx: Context, next: Next): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  await next();
}

/** The id the request log gave this request, which a person can quote to support. */
function requestIdOf(ctx: Context): string | undefined {
  const id = ctx.state?.requestId as unknown;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** A page for what cannot be sent back to the app: an expired page, an unknown client, a bad redirect. */
export function errorPage(p: { title: string; message: string; code?: string; requestId?: string }): string {
  return layout(
    p.title,
    html`<h1>${p.title}</h1>
      <p>${p.message}</p>
      ${p.code ? html`<p class="note">Error code: <code>${p.code}</code></p>` : ''}
      ${
        p.requestId
          ? html`<p class="note">
              If you contact support, quote this reference: <code class="ref">${p.requestId}</code>
            </p>`
          : ''
      }
      <nav aria-label="Ways back">
        <a href="/">Home</a> · <a href="${ACCOUNT_PATH}">Sign in</a> ·
        <a href="${ACCOUNT_PATH}/apps">Connected apps</a>
      </nav>`,
  );
}

interface Words {
  title: string;
  message: string;
}

const START_AGAIN = 'Go back to the app you were connecting and start again.';

/** The page's words per wire code; anything else reads as an unreadable request. */
const WORDS: Record<string, (retryAfter?: string) => Words> = {
  interaction_expired: () => ({
    title: 'This sign-in page has expired',
    message: `It was already used, or it was open for too long. ${START_AGAIN}`,
  }),
  admins_only: () => ({
    title: 'This page is for the school’s admins',
    message:
      'Your account can see and revoke the apps you allowed yourself, on Connected apps. Ask one of your school’s admins if you need more.',
  }),
  app_blocked: () => ({
    title: 'Your school has blocked this app',
    message:
      'An admin of your school has blocked this app, so it cannot reach the school’s data and has not been sent anything. If you need it, ask one of your school’s admins.',
  }),
  csrf_check_failed: () => ({
    title: 'This form could not be verified',
    message: `It was not sent from this sign-in page. ${START_AGAIN}`,
  }),
  too_many_requests: (retryAfter) => ({
    title: 'Too many sign-in attempts from this network',
    message: `Please wait ${retryAfter ?? 60} seconds, then start again from the app you were connecting.`,
  }),
  temporarily_unavailable: () => ({
    title: 'Sign-in is briefly unavailable',
    message: 'The school’s sign-in service cannot reach its storage right now. Please try again in a minute.',
  }),
  server_error: () => ({
    title: 'Something went wrong',
    message: 'Please go back to the app and try again.',
  }),
  not_found: () => ({ title: 'There is no page here', message: START_AGAIN }),
};

const UNREADABLE: Words = {
  title: 'This form could not be read',
  message: `Your browser sent something this page cannot accept. ${START_AGAIN}`,
};

/** Answers `error` as a page (the status and the error's headers are the caller's to set). */
export function renderErrorPage(ctx: Context, error: OAuthError): void {
  const words = WORDS[error.code]?.(error.headers['Retry-After']) ?? UNREADABLE;
  ctx.state.refusal = { error: error.code, error_description: error.description };
  ctx.type = 'text/html';
  ctx.set('Content-Security-Policy', pageCsp());
  ctx.body = errorPage({ ...words, code: error.code, requestId: requestIdOf(ctx) });
}

/** oidc-provider's routes a browser is sent to, which answer errors with a page. */
const BROWSER_ROUTES = new Set([
  'authorization',
  'resume',
  'end_session',
  'end_session_confirm',
  'end_session_success',
  'code_verification',
]);

/** True when oidc-provider's `route` answers errors with a page. */
export function isBrowserRoute(route: string | undefined): boolean {
  return route !== undefined && BROWSER_ROUTES.has(route);
}

/** Explains one of oidc-provider's errors in words a school admin can act on. */
function explain(out: ErrorOut): string {
  switch (out.error) {
    case 'invalid_client':
      return 'The app that sent you here is not registered with this school. Go back to the app and try connecting again.';
    case 'invalid_redirect_uri':
    case 'invalid_request':
      return 'The app that sent you here made a request this school cannot accept. It has not been sent back to the app. Go back to the app and try again.';
    default:
      return 'Something went wrong while connecting the app. Go back to the app and try again.';
  }
}

/** The page for an error oidc-provider renders on a browser route (the status is oidc-provider's). */
export function renderProviderErrorPage(ctx: Context, out: ErrorOut): void {
  ctx.set('Content-Security-Policy', pageCsp());
  ctx.type = 'text/html';
  ctx.body = errorPage({
    title: 'This app could not connect',
    message: explain(out),
    code: out.error,
    requestId: requestIdOf(ctx),
  });
}
