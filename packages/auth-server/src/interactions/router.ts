/**
 * The login and consent pages under `/oauth/interaction/<uid>` (DESIGN.md §5).
 *
 * Each route is a short pipeline: load the interaction (cookie-bound, must match the uid in the URL)
 * → check the form's CSRF token and Origin → act → hand the result back to oidc-provider, which
 * redirects the browser on. An expired or replayed interaction gets a clear page, never a redirect.
 * Pages are `Cache-Control: no-store`, unframeable, script-free and HTML-escaped.
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Context, Next } from 'koa';
import { errors, type Provider, type Interaction } from 'oidc-provider';
import { ALL_SCOPE_NAMES } from '@school/shared';
import type { AccountStore } from '../accounts/account-store.js';
import { clientRole } from '../provider/client-policy.js';
import { INTERACTION_PATH } from '../provider/configuration.js';
import { CsrfTokens } from './csrf.js';
import type { LoginGuard } from './login-guard.js';
import type { AuditLog } from '../audit/audit-log.js';
import { pageCsp } from './html.js';
import { consentPage, errorPage, loginPage, type ClientView } from './views.js';

/** What the interaction routes need. */
export interface InteractionDeps {
  provider: Provider;
  accounts: AccountStore;
  audit: AuditLog;
  /** Brute-force protection for the login form. */
  loginGuard: LoginGuard;
  /** The public origin, for the Origin check. */
  baseUrl: string;
  csrfSecret: string;
}

const GENERIC_LOGIN_ERROR = 'The email or password is not right.';
const scopeOrder = new Map(ALL_SCOPE_NAMES.map((s, i) => [s, i]));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class InteractionGone extends Error {}
class FormRejected extends Error {}

function page(ctx: Context, status: number, body: string, formTargets: string[] = []): void {
  ctx.status = status;
  ctx.type = 'text/html';
  ctx.set('Content-Security-Policy', pageCsp(formTargets));
  ctx.body = body;
}

/** The origin the browser ends up at, which a CSP `form-action` must allow for the redirect chain. */
function redirectOrigin(details: Interaction): string[] {
  const uri = details.params.redirect_uri;
  const url = typeof uri === 'string' ? URL.parse(uri) : null;
  return url ? [url.origin] : [];
}

/** Builds the router for the interaction pages. */
export function interactionRouter({
  provider,
  accounts,
  audit,
  loginGuard,
  baseUrl,
  csrfSecret,
}: InteractionDeps): Router {
  const who = (ctx: Context, details: Interaction) => ({
    requestId: ctx.state.requestId as string | undefined,
    ip: ctx.ip,
    clientId: String(details.params.client_id),
  });
  const router = new Router({ prefix: INTERACTION_PATH });
  const csrf = new CsrfTokens(csrfSecret);
  const ownOrigin = new URL(baseUrl).origin;
  const forms = bodyParser({ enableTypes: ['form'], formLimit: '16kb', encoding: 'utf-8' });

  const load = async (ctx: Context): Promise<Interaction> => {
    try {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      if (details.uid !== ctx.params.uid) throw new InteractionGone();
      return details;
    } catch (err) {
      if (err instanceof errors.SessionNotFound || err instanceof InteractionGone)
        throw new InteractionGone();
      throw err;
    }
  };

  const clientView = async (details: Interaction): Promise<ClientView> => {
    const client = await provider.Client.find(String(details.params.client_id));
    if (!client) throw new InteractionGone();
    return {
      name: client.clientName,
      clientId: client.clientId,
      redirectUri: String(details.params.redirect_uri),
      registeredIntegration: clientRole(client) === 'integration',
    };
  };

  /** Refuses a submission from another site or without this interaction's CSRF token. */
  const checkForm = (ctx: Context, uid: string): void => {
    const origin = ctx.get('origin');
    const body = ctx.request.body as Record<string, unknown> | undefined;
    // `Origin: null` (privacy settings, some redirects) says nothing; the CSRF token still decides.
    const foreign = origin !== '' && origin !== 'null' && origin !== ownOrigin;
    if (foreign || !csrf.verify(uid, body?.csrf)) throw new FormRejected();
  };

  const finish = async (
    ctx: Context,
    result: Parameters<Provider['interactionResult']>[2],
    merge: boolean,
  ) => {
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge });
    ctx.status = 303;
    ctx.redirect(to);
    ctx.status = 303;
  };

  const consentScopes = (details: Interaction): string[] => {
    const d = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const all = new Set([
      ...(d.missingOIDCScope ?? []),
      ...Object.values(d.missingResourceScopes ?? {}).flat(),
    ]);
    return [...all].sort((a, b) => (scopeOrder.get(a) ?? 999) - (scopeOrder.get(b) ?? 999));
  };

  // Every interaction route: no caching, expired interactions become a page.
  router.use(async (ctx: Context, next: Next) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    try {
      await next();
    } catch (err) {
      if (err instanceof FormRejected) {
        page(
          ctx,
          403,
          errorPage({
            title: 'This form could not be verified',
            message:
              'It was not sent from this sign-in page. Go back to the app you were connecting and start again.',
            code: 'csrf_check_failed',
          }),
        );
        return;
      }
      if (!(err instanceof InteractionGone)) throw err;
      page(
        ctx,
        400,
        errorPage({
          title: 'This sign-in page has expired',
          message:
            'It was already used, or it was open for too long. Go back to the app you were connecting and start again.',
          code: 'interaction_expired',
        }),
      );
    }
  });

  router.get('/:uid', async (ctx) => {
    const details = await load(ctx);
    const client = await clientView(details);
    const uid = details.uid;
    if (details.prompt.name === 'login') {
      page(
        ctx,
        200,
        loginPage({ action: `${INTERACTION_PATH}/${uid}/login`, csrf: csrf.issue(uid), client }),
        redirectOrigin(details),
      );
      return;
    }
    const account = details.session?.accountId
      ? await accounts.findAccount(details.session.accountId)
      : undefined;
    const claims = account ? await account.claims('userinfo', 'email', {}, []) : undefined;
    page(
      ctx,
      200,
      consentPage({
        confirmAction: `${INTERACTION_PATH}/${uid}/confirm`,
        abortAction: `${INTERACTION_PATH}/${uid}/abort`,
        csrf: csrf.issue(uid),
        client,
        scopes: consentScopes(details),
        accountEmail: typeof claims?.email === 'string' ? claims.email : undefined,
      }),
      redirectOrigin(details),
    );
  });

  router.post('/:uid/login', forms, async (ctx) => {
    const details = await load(ctx);
    checkForm(ctx, details.uid);
    if (details.prompt.name !== 'login') throw new InteractionGone();
    const body = ctx.request.body as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.slice(0, 320) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
    const retry = async (error: string, status: number) => {
      const client = await clientView(details);
      page(
        ctx,
        status,
        loginPage({
          action: `${INTERACTION_PATH}/${details.uid}/login`,
          csrf: csrf.issue(details.uid),
          client,
          email,
          error,
        }),
        redirectOrigin(details),
      );
    };
    const verdict = await loginGuard.before(email, ctx.ip);
    if (verdict.refusedForSeconds > 0) {
      // This address, or this email from this address, has failed too often. The same answer for
      // every email, real or not: the refusal reveals nothing about accounts.
      const wait = verdict.refusedForSeconds;
      ctx.set('Retry-After', String(wait));
      void audit.record('login_locked', { ...who(ctx, details), details: { email } });
      return retry(
        `Too many failed sign-ins from this network. Try again in ${Math.ceil(wait / 60)} minute(s).`,
        429,
      );
    }
    // An account under attack from elsewhere: a small delay for every attempt, never a refusal.
    if (verdict.delayMs) await sleep(verdict.delayMs);
    const accountId = email && password ? await accounts.authenticate(email, password) : undefined;
    if (!accountId) {
      void audit.record('login_failed', { ...who(ctx, details), details: { email } });
      const { delayMs, attack } = await loginGuard.failed(email, ctx.ip);
      if (attack)
        void audit.record('login_attack_suspected', { ...who(ctx, details), details: { email, ...attack } });
      if (delayMs) await sleep(delayMs);
      return retry(GENERIC_LOGIN_ERROR, 401);
    }
    await loginGuard.succeeded(email, ctx.ip);
    void audit.record('login_succeeded', { ...who(ctx, details), accountId });
    await finish(ctx, { login: { accountId } }, false);
  });

  router.post('/:uid/confirm', forms, async (ctx) => {
    const details = await load(ctx);
    checkForm(ctx, details.uid);
    if (details.prompt.name !== 'consent') throw new InteractionGone();
    const accountId = details.session?.accountId;
    if (!accountId) throw new InteractionGone();
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    if (!grant) throw new InteractionGone();
    const d = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (d.missingOIDCScope?.length) grant.addOIDCScope(d.missingOIDCScope.join(' '));
    if (d.missingOIDCClaims?.length) grant.addOIDCClaims(d.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    void audit.record('consent_granted', {
      ...who(ctx, details),
      accountId,
      details: { scope: consentScopes(details).join(' ') },
    });
    await finish(ctx, { consent: { grantId } }, true);
  });

  router.post('/:uid/abort', forms, async (ctx) => {
    const details = await load(ctx);
    checkForm(ctx, details.uid);
    void audit.record('consent_denied', { ...who(ctx, details), accountId: details.session?.accountId });
    await finish(ctx, { error: 'access_denied', error_description: 'The user denied the request' }, false);
  });

  return router;
}
