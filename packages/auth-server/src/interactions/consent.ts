/**
 * The consent page and its two forms (docs/decisions.md): who asks, where the browser goes afterwards, and
 * each scope in plain words. `…/confirm` grants what oidc-provider found missing and records it;
 * `…/abort` sends the browser straight back to the app with `access_denied` (one click, no page in
 * between: the app is told at once); `…/switch`
 * ("Not you?") ends the remembered session and starts the same authorization request again, so
 * someone else can sign in. All follow the shared steps (router.ts).
 */
import { ALL_SCOPE_NAMES, INTERACTION_PATH, OAUTH_ROUTES } from '@school/shared';
import { InteractionGone } from '../pages/error-page.js';
import { sendPage } from '../pages/html.js';
import type { Grant } from 'oidc-provider';
import {
  clearRefusals,
  grantedScopes,
  recordRefusals,
  refusedScopes,
  removeScopes,
} from '../provider/grant-scopes.js';
import { chosenEnd, durationChoices, type AccessCalendar } from './access-duration.js';
import { APPROVAL_REQUESTED, askAdmin, mayGrant, splitByCeiling, type CeilingDeps } from './ceilings.js';
import type { AllowForm } from './forms.js';
import { actor, clientView, finishInteraction, redirectOrigin } from './steps.js';
import type { Step, StepContext, StepDeps } from './steps.js';
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
 * Which of the offered `scopes` the admin approved: those of `ticked` that were offered (a form
 * naming anything else is not trusted with it), and which were refused. `openid` is neither: it is
 * always kept when asked for (scope-choices.ts). Nothing approved out of something offered is a deny
 * (but see {@link keepsHeld}).
 */
export function decideScopes(
  scopes: readonly string[],
  ticked: readonly string[],
): { approved: string[]; refused: string[] } {
  const offered = scopes.filter((s) => s !== 'openid');
  const chosen = new Set(ticked);
  const approved = offered.filter((s) => chosen.has(s));
  const refused = offered.filter((s) => !chosen.has(s));
  return { approved: offered.length ? approved : ['openid'], refused };
}

/**
 * Whether Allow with nothing ticked keeps what the app holds rather than denying: only when `grant`
 * (as stored) holds access and every box, `refused`, was one refused before, so the page started with
 * none ticked; the refusals stand. Anything else left all unticked is a deny.
 */
function keepsHeld(grant: Grant, refused: readonly string[]): boolean {
  if (!refused.length || !grantedScopes(grant).some((s) => s !== 'openid')) return false;
  const before = new Set(refusedScopes(grant));
  return refused.every((s) => before.has(s));
}

/**
 * The consent steps: `show` answers `GET …/<uid>` while oidc-provider asks for consent; `grant`
 * (`POST …/confirm`) and `deny` (`POST …/abort`) follow the checked form.
 */
export function consentSteps({
  provider,
  audit,
  accounts,
  csrf,
  calendar,
  roles,
  approvals,
}: StepDeps & CeilingDeps & { calendar: AccessCalendar }): {
  show: Step;
  grant: Step<{ form: AllowForm }>;
  ask: Step<{ form: AllowForm }>;
  deny: Step;
  switchAccount: Step;
} {
  const ceilings = { accounts, roles, approvals };

  /**
   * What the page lists (see pageScopes), split by what the signer may grant this app: only `offered`
   * is a choice; `beyond` needs an admin (ceilings.ts).
   */
  async function withinCeiling(details: StepContext['state']['interaction'], accountId: string) {
    const shown = pageScopes(details);
    const may = await mayGrant(ceilings, accountId, String(details.params.client_id));
    return { ...shown, ...splitByCeiling(shown.scopes, may), may };
  }

  /** Ends the request with `access_denied`: the browser goes straight back to the app. */
  async function deny(ctx: StepContext, reason: 'denied' | 'nothing ticked'): Promise<void> {
    const details = ctx.state.interaction;
    void audit.record('consent_denied', {
      ...actor(ctx),
      accountId: details.session?.accountId,
      ...(reason === 'nothing ticked' ? { details: { reason } } : {}),
    });
    await finishInteraction(
      provider,
      ctx,
      { error: 'access_denied', error_description: 'The user denied the request' },
      false,
    );
  }

  return {
    show: async function showConsent(ctx) {
      const details = ctx.state.interaction;
      const client = await clientView(provider, details);
      const uid = details.uid;
      // The access the app holds already (as stored, with its refusals): its end is kept unless changed.
      const held = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
      const accountId = details.session?.accountId;
      if (!accountId) throw new InteractionGone();
      const split = await withinCeiling(details, accountId);
      const shown = { scopes: split.offered, nothingNew: split.nothingNew };
      // An admin approved these since: asking an admin was saying yes, so they start ticked.
      const approvedByAdmin = new Set(
        (await approvals.adminApprovedScopes(accountId, client.clientId)).map((a) => a.scope),
      );
      const refusedBefore = held
        ? refusedScopes(held).filter((s) => shown.scopes.includes(s) && !approvedByAdmin.has(s))
        : [];
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
          ...shown,
          needsAdmin: split.beyond,
          askAction: `${INTERACTION_PATH}/${uid}/ask-admin`,
          refusedBefore,
          keepsHeldWhenNoneTicked: held ? keepsHeld(held, decideScopes(shown.scopes, []).refused) : false,
          durations: durationChoices(new Date(), calendar),
          currentEnd: held?.exp,
          timezone: calendar.timezone,
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
      // What the page offered (within the signer's ceiling), and of it what the form says is ticked:
      // nothing else counts, whatever the form posts.
      const split = await withinCeiling(details, accountId);
      const shown = { scopes: split.offered, nothingNew: split.nothingNew };
      const choice = decideScopes(shown.scopes, ctx.state.form.scope);
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      if (!grant) throw new InteractionGone();
      if (!choice.approved.length && !keepsHeld(grant, choice.refused)) return deny(ctx, 'nothing ticked');
      const currentEnd = details.grantId ? grant.exp : undefined;
      const missing = details.prompt.details as MissingGrants;
      const approved = new Set(['openid', ...choice.approved]);
      // Refused before and not offered now: still refused (scope-choices.ts marks it if asked again).
      const stillRefused = refusedScopes(grant).filter((s) => !shown.scopes.includes(s));
      clearRefusals(grant);
      const oidcScopes = (missing.missingOIDCScope ?? []).filter((s) => approved.has(s));
      if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
      if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
      const indicators = new Set([
        ...Object.keys(missing.missingResourceScopes ?? {}),
        ...Object.keys(grant.resources ?? {}),
      ]);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        const granted = scopes.filter((s) => approved.has(s));
        if (granted.length) grant.addResourceScope(indicator, granted.join(' '));
      }
      // Unticked: not added; asked again with nothing new, taken back. Recorded as refused so that
      // this request counts them as answered (provider/grant-scopes.ts).
      if (shown.nothingNew) removeScopes(grant, choice.refused);
      // Beyond the ceiling: never in the grant, whatever it held; answered for this request as refused.
      removeScopes(
        grant,
        grantedScopes(grant).filter((s) => !split.may(s)),
      );
      recordRefusals(grant, [...new Set([...choice.refused, ...stillRefused, ...split.beyond])], indicators);
      // How long: the end chosen, for the whole grant; none chosen keeps the end it has (access-duration.ts).
      const duration = ctx.state.form.duration ?? (currentEnd === undefined ? 'revoked' : 'current');
      grant.exp = chosenEnd(ctx.state.form.duration, currentEnd, new Date(), calendar);
      const grantId = await grant.save();
      void audit.record('consent_granted', {
        ...actor(ctx),
        accountId,
        details: {
          scope: shown.nothingNew
            ? ''
            : consentScopes(missing)
                .filter((s) => approved.has(s))
                .join(' '),
          ...(choice.refused.length ? { refused: choice.refused.join(' ') } : {}),
          duration,
          ends: new Date(grant.exp * 1000).toISOString(),
        },
      });
      await finishInteraction(provider, ctx, { consent: { grantId } }, true);
    },

    ask: async function askAnAdmin(ctx) {
      const details = ctx.state.interaction;
      const accountId = details.session?.accountId;
      if (!accountId) throw new InteractionGone();
      const { beyond } = await withinCeiling(details, accountId);
      const client = await clientView(provider, details);
      await askAdmin(
        { ...ceilings, audit },
        {
          accountId,
          client,
          scopes: beyond,
          duration: ctx.state.form.duration ?? 'revoked',
          requestId: ctx.state.requestId,
          ip: ctx.ip,
        },
      );
      await finishInteraction(
        provider,
        ctx,
        {
          error: 'access_denied',
          error_description: beyond.length ? APPROVAL_REQUESTED : 'The user denied the request',
        },
        false,
      );
    },

    deny: (ctx) => deny(ctx, 'denied'),

    switchAccount: async function switchAccount(ctx) {
      const details = ctx.state.interaction;
      const uid = details.session?.uid;
      const session = uid ? await provider.Session.findByUid(uid) : undefined;
      await session?.destroy();
      void audit.record('signed_out', { ...actor(ctx), accountId: details.session?.accountId });
      ctx.status = 303;
      ctx.redirect(`${OAUTH_ROUTES.authorization}?${authorizationQuery(details.params).toString()}`);
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
