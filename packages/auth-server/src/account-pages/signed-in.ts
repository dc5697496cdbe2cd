/**
 * Who is looking at an account page: the person signed in to this browser's login session
 * (oidc-provider's `_session` cookie, the one the login page set), read on every request, never a
 * session of the pages' own. Nobody signed in: a page is answered by sending the browser to sign in
 * through the pages' own authorization request (provider/account-console.ts), which comes back to
 * `…/signed-in`; a form is refused (its CSRF token was bound to a session that is gone).
 *
 * CSRF: every form carries an HMAC of the login session's uid (pages/csrf.ts), and a submission
 * whose `Origin` names another site is refused, as on the login and consent pages.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ACCOUNT_PATH, OAUTH_ROUTES } from '@school/shared';
import type { Next, ParameterizedContext } from 'koa';
import type { Provider } from 'oidc-provider';
import type { z } from 'zod';
import type { AccountProfile, AccountStore } from '../accounts/account-store.js';
import { ACCOUNT_SIGNED_IN_PATH } from '../provider/account-console.js';
import { ACCOUNT_CONSOLE_CLIENT_ID } from '../clients/client-kind.js';
import { isForeignOrigin, type CsrfTokens } from '../pages/csrf.js';
import { FormRejected } from '../pages/error-page.js';

/** What the account steps leave on `ctx.state`. */
export interface AccountState {
  requestId?: string;
  /** The signed-in person. */
  account: AccountProfile;
  /** The login session's uid, which the forms' CSRF tokens are bound to. */
  sessionUid: string;
  /** The login session's id (its record in Redis; storage/account-sessions.ts). */
  sessionId: string;
  /** The CSRF token of this session's forms. */
  csrf: string;
}

/** The context of an account step. */
export type AccountContext<S = object> = ParameterizedContext<AccountState & S> & {
  params: Record<string, string>;
};

/** One step of an account route. */
export type AccountStep<S = object> = (ctx: AccountContext<S>, next: Next) => Promise<unknown>;

/**
 * The pages other than the account pages that sign a person in the same way, by name: the sign-in
 * comes back to `…/signed-in` with the name at the start of its `state`, and goes on to the page.
 */
export const SIGN_IN_RETURNS = { device: OAUTH_ROUTES.code_verification } as const;
export type SignInReturn = keyof typeof SIGN_IN_RETURNS;

/** The mark, at the start of `state`, of an account page's own path (base64url) to return to. */
const PAGE_RETURN = '~';
const PAGE_RETURN_MAX = 512;
/**
 * An account page to go back to: a path under ACCOUNT_PATH of letters, digits and hyphens between
 * single slashes, and a query without `#`, `\` or spaces. Nothing else: no other origin (`//`,
 * `https:`, `/\`), no percent-encoded path, no dot segments, not `signed-in` itself.
 */
const ACCOUNT_PAGE = new RegExp(
  `^${ACCOUNT_PATH.replaceAll('/', '\\/')}(?:\\/[A-Za-z0-9-]+)+(?:\\?[\\x21\\x22\\x24-\\x5b\\x5d-\\x7e]*)?$`,
);

/**
 * `candidate` when it is an account page's path (and query) on this origin that may be returned to
 * after signing in, else undefined: the `state` it comes back in is anyone's to write, so this is the
 * whole of the redirect target rule (docs/decisions.md).
 */
export function accountReturnPath(candidate: string, baseUrl: string): string | undefined {
  if (candidate.length > PAGE_RETURN_MAX || !ACCOUNT_PAGE.test(candidate)) return undefined;
  if (candidate.split('?')[0] === ACCOUNT_SIGNED_IN_PATH) return undefined;
  const origin = new URL(baseUrl).origin;
  const url = new URL(candidate, origin);
  if (url.origin !== origin || !url.pathname.startsWith(`${ACCOUNT_PATH}/`)) return undefined;
  return `${url.pathname}${url.search}`;
}

/**
 * The authorization request that signs a person in to the account pages: back to the page named
 * `returnTo` (another page, e.g. device pairing) or the account page at `page`, else Connected apps;
 * `prompt: 'login'` asks to sign in again although signed in.
 */
export function signInUrl(
  baseUrl: string,
  { returnTo, page, prompt }: { returnTo?: SignInReturn; page?: string; prompt?: 'login' } = {},
): string {
  const challenge = createHash('sha256').update(randomBytes(32)).digest('base64url');
  const state = randomBytes(12).toString('base64url');
  const pagePath = page === undefined ? undefined : accountReturnPath(page, baseUrl);
  const back = returnTo ?? (pagePath && `${PAGE_RETURN}${Buffer.from(pagePath).toString('base64url')}`);
  return `${OAUTH_ROUTES.authorization}?${new URLSearchParams({
    client_id: ACCOUNT_CONSOLE_CLIENT_ID,
    response_type: 'code',
    redirect_uri: `${baseUrl}${ACCOUNT_SIGNED_IN_PATH}`,
    scope: 'openid',
    state: back ? `${back}.${state}` : state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(prompt ? { prompt } : {}),
  }).toString()}`;
}

/**
 * Where `…/signed-in` goes on to: the page its `state` names (a page of SIGN_IN_RETURNS, or an
 * account page passing {@link accountReturnPath}), else Connected apps.
 */
export function afterSignIn(state: unknown, baseUrl: string): string {
  const name = typeof state === 'string' && state.includes('.') ? state.slice(0, state.indexOf('.')) : '';
  if (Object.hasOwn(SIGN_IN_RETURNS, name)) return SIGN_IN_RETURNS[name as SignInReturn];
  if (name.startsWith(PAGE_RETURN) && name.length <= PAGE_RETURN_MAX * 2) {
    const page = accountReturnPath(Buffer.from(name.slice(1), 'base64url').toString('latin1'), baseUrl);
    if (page) return page;
  }
  return accountPath('apps');
}

/** Loads the signed-in person, or sends a page request to sign in first (a form: {@link FormRejected}). */
export function requireSignIn(
  provider: Provider,
  accounts: AccountStore,
  csrf: CsrfTokens,
  baseUrl: string,
  returnTo?: SignInReturn,
): AccountStep {
  return async function requireSignIn(ctx, next) {
    const session = await provider.Session.get(ctx);
    const found = session.accountId ? await accounts.profile(session.accountId) : undefined;
    const account = found?.disabled ? undefined : found; // a disabled account is signed in nowhere
    if (!account) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new FormRejected();
      ctx.status = 303;
      // Back to this very page once signed in (a deep link), unless another page asked for the sign-in.
      ctx.redirect(signInUrl(baseUrl, returnTo ? { returnTo } : { page: ctx.originalUrl }));
      return;
    }
    ctx.state.account = account;
    ctx.state.sessionUid = session.uid;
    ctx.state.sessionId = session.jti;
    ctx.state.csrf = csrf.issue(`account:${session.uid}`);
    await next();
  };
}

/**
 * Refuses ({@link FormRejected}) a form from another site, without this session's CSRF token, or not
 * matching `schema`; else leaves it on `ctx.state.form`.
 */
export function checkAccountForm<T extends { csrf: string }>(
  schema: z.ZodType<T>,
  { csrf, ownOrigin }: { csrf: CsrfTokens; ownOrigin: string },
): AccountStep<{ form: T }> {
  return async function checkAccountForm(ctx, next) {
    if (isForeignOrigin(ctx.get('origin'), ownOrigin)) throw new FormRejected();
    const form = schema.safeParse(ctx.request.body);
    if (!form.success || !csrf.verify(`account:${ctx.state.sessionUid}`, form.data.csrf))
      throw new FormRejected();
    ctx.state.form = form.data;
    await next();
  };
}

/** Where a page of the account pages lives. */
export const accountPath = (page: string) => `${ACCOUNT_PATH}/${page}`;
