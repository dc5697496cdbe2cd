/**
 * The consent page and its two forms (docs/decisions.md): who asks, where the browser goes afterwards, and
 * each scope in plain words. `…/confirm` grants what oidc-provider found missing and records it;
 * `…/abort` sends the browser straight back to the app with `access_denied` (one click, no page in
 * between: the app is told at once); `…/switch`
 * ("Not you?") ends the remembered session and starts the same authorization request again, so
 * someone else can sign in. All follow the shared steps (router.ts).
 */
import { ALL_SCOPE_NAMES, INTERACTION_PATH, OAUTH_ROUTES } from '@school/shared';
import { InteractionGone } from './error-page.js';
import { sendPage } from './html.js';
import { actor, clientView, finishInteraction, redirectOrigin, type Step, type StepDeps } from './steps.js';
import { consentPage } from './views.js';

/** What oidc-provider's consent prompt lists as not yet granted. */
interface MissingGrants {
  missingOIDCScope?: string[];
  missingOIDCClaims?: string[];
  missingResourceScopes?: Record<string, string[]>;
}

const scopeOrder = new Map(ALL_SCOPE_NAMES.map((s, i) => [s, i]));

/** Scope names once each, in the order of the scope list; names the server does not define are left out. */
function inScopeOrder(names: Iterable<string>): string[] {
  return [...new Set(names)]
    .filter((s) => scopeOrder.has(s))
    .sort((a, b) => scopeOrder.get(a)! - scopeOrder.get(b)!);
}

/** The scopes not granted yet, which this consent adds. */
function consentScopes(missing: MissingGrants): string[] {
  return inScopeOrder([
    ...(missing.missingOIDCScope ?? []),
    ...Object.values(missing.missingResourceScopes ?? {}).flat(),
  ]);
}

/**
 * What the consent page lists: the scopes this consent adds. An app on this computer is asked every
 * time (RFC 8252 §8.6), also when it asks for nothing new: the page then lists what it asks for, all
 * allowed before, so it is never empty.
 */
function pageScopes(details: { prompt: { details: unknown }; params: Record<string, unknown> }) {
  const added = consentScopes(details.prompt.details as MissingGrants);
  if (added.length) return { scopes: added, nothingNew: false };
  const asked = typeof details.params.scope === 'string' ? details.params.scope.split(' ') : [];
  return { scopes: inScopeOrder(asked), nothingNew: true };
}

/**
 * The consent steps: `show` answers `GET …/<uid>` while oidc-provider asks for consent; `grant`
 * (`POST …/confirm`) and `deny` (`POST …/abort`) follow the checked form.
 */
export function consentSteps({
  provider,
  accounts,
  audit,
  csrf,
}: StepDeps): Record<'show' | 'grant' | 'deny' | 'switchAccount', Step> {
  return {
    show: async function showConsent(ctx) {
      const details = ctx.state.interaction;
      const client = await clientView(provider, details);
      const uid = details.uid;
      const account = details.session?.accountId
        ? await accounts.findAccount(details.session.accountId)
        : undefined;
      const claims = account ? await account.claims('userinfo', 'email', {}, []) : undefined;
      sendPage(
        ctx,
        200,
        consentPage({
          confirmAction: `${INTERACTION_PATH}/${uid}/confirm`,
          abortAction: `${INTERACTION_PATH}/${uid}/abort`,
          switchAction: `${INTERACTION_PATH}/${uid}/switch`,
          csrf: csrf.issue(uid),
          client,
          ...pageScopes(details),
          allowedBefore: Boolean(details.grantId),
          accountEmail: typeof claims?.email === 'string' ? claims.email : undefined,
        }),
        redirectOrigin(details),
      );
    },

    grant: async function grantConsent(ctx) {
      const details = ctx.state.interaction;
      const accountId = details.session?.accountId;
      if (!accountId) throw new InteractionGone();
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      if (!grant) throw new InteractionGone();
      const missing = details.prompt.details as MissingGrants;
      if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(' '));
      }
      const grantId = await grant.save();
      void audit.record('consent_granted', {
        ...actor(ctx),
        accountId,
        details: { scope: consentScopes(missing).join(' ') },
      });
      await finishInteraction(provider, ctx, { consent: { grantId } }, true);
    },

    deny: async function denyConsent(ctx) {
      const details = ctx.state.interaction;
      void audit.record('consent_denied', { ...actor(ctx), accountId: details.session?.accountId });
      await finishInteraction(
        provider,
        ctx,
        { error: 'access_denied', error_description: 'The user denied the request' },
        false,
      );
    },

    switchAccount: async function switchAccount(ctx) {
      const details = ctx.state.interaction;
      const uid = details.session?.uid;
      const session = uid ? await provider.Session.findByUid(uid) : undefined;
      await session?.destroy();
      void audit.record('signed_out', { ...actor(ctx), accountId: details.session?.accountId });
      ctx.status = 303;
      ctx.redirect(`${OAUTH_ROUTES.authorization}?${authorizationQuery(details.params)}`);
    },
  };
}

/** The authorization request's parameters as a query string, to start it again. */
function authorizationQuery(params: Record<string, unknown>): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string') query.append(name, v);
    }
  }
  return query;
}
