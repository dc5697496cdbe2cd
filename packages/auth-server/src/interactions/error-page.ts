/**
 * The page a browser route (`/oauth/…`: the authorization endpoint, login and consent) answers for
 * an error of the table, in words a school admin can act on; the wire code is shown small, for
 * whoever they report it to. The JSON routes answer the same errors as `{error, error_description}`
 * (http/error-guard.ts).
 */
import type { OAuthError } from '@school/shared';
import type { Context } from 'koa';
import { pageCsp } from './html.js';
import { errorPage } from './views.js';

const UNREADABLE = {
  title: 'This form could not be read',
  message:
    'Your browser sent something this page cannot accept. Go back to the app you were connecting and start again.',
};

/** The title and message for an error code (`retryAfter`: seconds, for a rate limit). */
function wordsFor(code: string, retryAfter: string | undefined): { title: string; message: string } {
  switch (code) {
    case 'too_many_requests':
      return {
        title: 'Too many sign-in attempts from this network',
        message: `Please wait ${retryAfter ?? 60} seconds, then start again from the app you were connecting.`,
      };
    case 'temporarily_unavailable':
      return {
        title: 'Sign-in is briefly unavailable',
        message:
          'The school’s sign-in service cannot reach its storage right now. Please try again in a minute.',
      };
    case 'server_error':
      return { title: 'Something went wrong', message: 'Please go back to the app and try again.' };
    case 'not_found':
      return {
        title: 'There is no page here',
        message: 'Go back to the app you were connecting and start again.',
      };
    default:
      return UNREADABLE;
  }
}

/** Answers `error` as a page (status and headers are the caller's). */
export function renderErrorPage(ctx: Context, error: OAuthError): void {
  ctx.type = 'text/html';
  ctx.set('Content-Security-Policy', pageCsp());
  ctx.body = errorPage({ ...wordsFor(error.code, error.headers['Retry-After']), code: error.code });
}
