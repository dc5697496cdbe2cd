/**
 * The named steps the interaction routes are built from, in the style of oidc-provider's
 * lib/actions/authorization/: a route is a list of small middleware, each one check or one action,
 * so a stack trace names the failing step. Steps pass what they found on `ctx.state`
 * ({@link InteractionState}); a refusal is thrown (pages/error-page.ts turns it into a page).
 */
import type { Context, Next, ParameterizedContext } from 'koa';
import { errors, type Interaction, type Provider } from 'oidc-provider';
import type { z } from 'zod';
import { clientKind, isSelfDeclared } from '../clients/client-kind.js';
import type { AccountStore } from '../accounts/account-store.js';
import type { AuditLog } from '../audit/audit-log.js';
import { isForeignOrigin, type CsrfTokens } from '../pages/csrf.js';
import type { LoginGuard } from '../accounts/login-guard.js';
import { FormRejected, InteractionGone } from '../pages/error-page.js';
import type { ClientView } from './views.js';

/** What the interaction steps need. */
export interface StepDeps {
  provider: Provider;
  accounts: AccountStore;
  audit: AuditLog;
  /** Brute-force protection for the login form. */
  loginGuard: LoginGuard;
  csrf: CsrfTokens;
}

/** What the steps leave on `ctx.state` for the steps after them. */
export interface InteractionState {
  /** Set by the request log (http/request-log.ts). */
  requestId?: string;
  /** Set by {@link loadInteraction}. */
  interaction: Interaction;
}

/** The context a {@link Step} sees: the route's `params`, and the state the steps before it left. */
export type StepContext<S = object> = ParameterizedContext<InteractionState & S> & {
  params: Record<string, string>;
};

/** A step of an interaction route, needing the state `S` from the steps before it. */
export type Step<S = object> = (ctx: StepContext<S>, next: Next) => Promise<unknown>;

/** Loads this browser's interaction, which must be the one named in the URL, else {@link InteractionGone}. */
export function loadInteraction(provider: Provider): Step {
  return async function loadInteraction(ctx, next) {
    let details: Interaction;
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (err) {
      if (err instanceof errors.SessionNotFound) throw new InteractionGone();
      throw err;
    }
    if (details.uid !== ctx.params.uid) throw new InteractionGone();
    ctx.state.interaction = details;
    await next();
  };
}

/**
 * Refuses ({@link FormRejected}) a submission from another site, one that does not match `schema`,
 * or one without this interaction's CSRF token; else leaves the parsed form on `ctx.state.form`.
 */
export function checkForm<T extends { csrf: string }>(
  schema: z.ZodType<T>,
  { csrf, ownOrigin }: { csrf: CsrfTokens; ownOrigin: string },
): Step<{ form: T }> {
  return async function checkForm(ctx, next) {
    if (isForeignOrigin(ctx.get('origin'), ownOrigin)) throw new FormRejected();
    const form = schema.safeParse(ctx.request.body);
    if (!form.success || !csrf.verify(ctx.state.interaction.uid, form.data.csrf)) throw new FormRejected();
    ctx.state.form = form.data;
    await next();
  };
}

/** Goes on only when oidc-provider is asking for `prompt`; a form for another step is stale. */
export function requirePrompt(prompt: 'login' | 'consent'): Step {
  return async function requirePrompt(ctx, next) {
    if (ctx.state.interaction.prompt.name !== prompt) throw new InteractionGone();
    await next();
  };
}

/** The client asking, as the pages show it; {@link InteractionGone} when it no longer exists. */
export async function clientView(provider: Provider, details: Interaction): Promise<ClientView> {
  const client = await provider.Client.find(String(details.params.client_id));
  if (!client) throw new InteractionGone();
  return {
    name: client.clientName,
    clientId: client.clientId,
    redirectUri: String(details.params.redirect_uri),
    kind: clientKind(client),
    selfDeclared: isSelfDeclared(client),
  };
}

/** The origin the browser ends up at, which a CSP `form-action` must allow for the redirect chain. */
export function redirectOrigin(details: Interaction): string[] {
  const uri = details.params.redirect_uri;
  const url = typeof uri === 'string' ? URL.parse(uri) : null;
  return url ? [url.origin] : [];
}

/** Who did it, for the audit log. */
export function actor(ctx: StepContext) {
  return {
    requestId: ctx.state.requestId,
    ip: ctx.ip,
    clientId: String(ctx.state.interaction.params.client_id),
  };
}

/** Hands the interaction's result to oidc-provider and sends the browser on (303). */
export async function finishInteraction(
  provider: Provider,
  ctx: Context,
  result: Parameters<Provider['interactionResult']>[2],
  mergeWithLastSubmission: boolean,
): Promise<void> {
  const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission });
  ctx.status = 303;
  ctx.redirect(to);
  ctx.status = 303;
}
