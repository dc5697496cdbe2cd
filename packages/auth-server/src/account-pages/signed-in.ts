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

/**
 * The authorization request that signs a person in to the account pages (or, with `returnTo`, to
 * that page); `prompt: 'login'` asks to sign in again although signed in.
 */
export function signInUrl(
  baseUrl: string,
  { returnTo, prompt }: { returnTo?: SignInReturn; prompt?: 'login' } = {},
): string {
  const challenge = createHash('sha256').update(randomBytes(32)).digest('base64url');
  const state = randomBytes(12).toString('base64url');
  return `${OAUTH_ROUTES.authorization}?${new URLSearchParams({
    client_id: ACCOUNT_CONSOLE_CLIENT_ID,
    response_type: 'code',
    redirect_uri: `${baseUrl}${ACCOUNT_SIGNED_IN_PATH}`,
    scope: 'openid',
    state: returnTo ? `${returnTo}.${state}` : state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(prompt ? { prompt } : {}),
  }).toString()}`;
}

/** Where `…/signed-in` goes on to: the page its `state` names, else Connected apps. */
export function afterSignIn(state: unknown): string {
  const name = typeof state === 'string' && state.includes('.') ? state.slice(0, state.indexOf('.')) : '';
  return Object.hasOwn(SIGN_IN_RETURNS, name) ? SIGN_IN_RETURNS[name as SignInReturn] : accountPath('apps');
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
      ctx.redirect(signInUrl(baseUrl, { returnTo }));
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
