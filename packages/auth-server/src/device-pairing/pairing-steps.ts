/**
 * The device pairing page's steps (`/oauth/device`, docs/decisions.md): a person signed in to this
 * browser (account-pages/signed-in.ts; with a passkey when the account has one) types the code their
 * device shows (`enter`), sees the request (the app, where and when it asked, the scopes and how long,
 * the same choices as the consent page) and allows (`approve`) or denies (`deny`) it.
 *
 * The page is this server's own, not oidc-provider's user-code pages: approving writes what
 * oidc-provider's device flow writes when its own pages finish (the Grant, then the DeviceCode's
 * account, grant, scope and resource), so the device's next poll of the token endpoint gets tokens
 * from oidc-provider's `device_code` grant as usual (DPoP-bound when it sends a proof).
 *
 * The guards: wrong codes are limited per account and address (wrong-code-guard.ts); a code belongs to
 * the first account that enters it and to no other, and each account has one pending pairing
 * (pairing-claims.ts); an expired or decided code is refused; every step is audited. As on the consent
 * page, only what the signer may grant is offered and granted (interactions/ceilings.ts); the rest is
 * listed apart with Ask an admin, which ends the pairing with `access_denied` saying approval was asked.
 */
import { randomBytes } from 'node:crypto';
import { ALL_SCOPE_NAMES, API_SCOPE_NAMES, BASELINE_SCOPE_NAMES, minutesText, plural } from '@school/shared';
import type { DeviceCode, Provider } from 'oidc-provider';
import { z } from 'zod';
import type { AccountContext, AccountStep } from '../account-pages/signed-in.js';
import { signInUrl } from '../account-pages/signed-in.js';
import type { AuditLog } from '../audit/audit-log.js';
import { clientKind, isSelfDeclared } from '../clients/client-kind.js';
import {
  accessEnds,
  durationChoices,
  type AccessCalendar,
  type Duration,
} from '../interactions/access-duration.js';
import {
  APPROVAL_REQUESTED,
  askAdmin,
  mayGrant,
  splitByCeiling,
  type CeilingDeps,
} from '../interactions/ceilings.js';
import { decideScopes } from '../interactions/consent.js';
import { allowForm } from '../interactions/forms.js';
import { AppBlocked } from '../pages/error-page.js';
import { sendPage } from '../pages/html.js';
import { signedInWithPasskey } from '../passkeys/sign-in-methods.js';
import type { Passkeys } from '../passkeys/passkeys.js';
import { grantTag } from '../storage/redis-keys.js';
import { nearness } from './network-distance.js';
import type { PairingClaims } from './pairing-claims.js';
import { confirmPairingPage, enterCodePage, pairingDonePage, passkeyFirstPage } from './pairing-views.js';
import type { WrongCodeGuard } from './wrong-code-guard.js';

/** The page's one form: which step, the code, and for `approve` the consent page's choices. */
export const pairingForm = allowForm.extend({
  step: z.enum(['enter', 'approve', 'ask-admin', 'deny']).catch('enter'),
  user_code: z
    .string()
    .catch('')
    .transform((s) => s.slice(0, 32)),
});
export type PairingForm = z.infer<typeof pairingForm>;

/** What the steps need. */
export interface PairingDeps extends CeilingDeps {
  provider: Provider;
  audit: AuditLog;
  passkeys: Passkeys;
  claims: PairingClaims;
  wrongCodes: WrongCodeGuard;
  calendar: AccessCalendar;
  baseUrl: string;
  /** Whether the school blocked an app (storage/app-reviews.ts): a blocked app's code pairs nothing. */
  isBlocked: (clientId: string) => Promise<boolean>;
}

/**
 * How long the pairing form asks access to last (for Allow, and for Ask an admin, whose button submits
 * the same form): a pairing makes a new grant, so there is no current end to keep, and a form without
 * a choice gets the shortest.
 */
function chosenDuration(form: PairingForm): Duration {
  const chosen = form.duration;
  return chosen === undefined || chosen === 'current' ? 'hour' : chosen;
}

/** A user code as typed, as oidc-provider stores it: letters upper-cased, everything else dropped. */
export const normalizeUserCode = (typed: string) => typed.toUpperCase().replace(/[^A-Z0-9]/g, '');

/** A normalized code as shown: `XXXX-XXXX`. */
const shownCode = (code: string) => (code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code);

/** "just now", "40 seconds ago", "3 minutes ago". */
export function agoText(seconds: number): string {
  if (seconds < 10) return 'just now';
  if (seconds < 90) return `${Math.round(seconds)} seconds ago`;
  return `${plural(Math.round(seconds / 60), 'minute')} ago`;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A refusal shown on the code form: status and words. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

type Ctx = AccountContext<{ form: PairingForm }>;

/** The steps. */
export function pairingSteps(deps: PairingDeps): {
  requirePasskey: AccountStep;
  show: AccountStep;
  submit: AccountStep<{ form: PairingForm }>;
} {
  const { provider, audit, claims, wrongCodes } = deps;
  /** The scopes the device asked for, split by what `accountId` may grant its app. */
  const withinCeiling = async (accountId: string, code: DeviceCode) =>
    splitByCeiling(requestedScopes(code), await mayGrant(deps, accountId, String(code.clientId)));
  const who = (ctx: AccountContext) => ({
    requestId: ctx.state.requestId,
    ip: ctx.ip,
    accountId: ctx.state.account._id,
  });

  const showForm = (ctx: AccountContext, status = 200, problem?: string) =>
    sendPage(ctx, status, enterCodePage({ csrf: ctx.state.csrf, email: ctx.state.account.email, problem }));

  /** The pending, unexpired, undecided code the form names, claimed by this account (else a Refusal). */
  async function claimedCode(ctx: Ctx, { claim }: { claim: boolean }): Promise<DeviceCode> {
    const accountId = ctx.state.account._id;
    const typed = normalizeUserCode(ctx.state.form.user_code);
    // Every step that names a code counts it, so no step is a way around the wrong-code limit.
    const refusedFor = await wrongCodes.before(accountId, ctx.ip);
    if (refusedFor) {
      void audit.record('rate_limited', {
        ...who(ctx),
        details: { reason: 'wrong device pairing codes', retry_after: refusedFor },
      });
      throw new Refusal(
        429,
        `Too many wrong codes. Wait ${minutesText(refusedFor)}, then type the code your device shows.`,
      );
    }
    const code = typed
      ? await provider.DeviceCode.findByUserCode(typed, { ignoreExpiration: true })
      : undefined;
    if (!code) throw new Refusal(400, 'That code is not right. Type the code your device shows.');
    await wrongCodes.right(accountId, ctx.ip);
    if (code.isExpired) {
      void audit.record('device_pairing_expired', {
        ...who(ctx),
        clientId: code.clientId,
        details: { by: 'person' },
      });
      throw new Refusal(
        400,
        'That code has expired (codes last 5 minutes). Start the pairing on your device again.',
      );
    }
    if (code.error || code.accountId)
      throw new Refusal(400, 'That code was already used. Start the pairing on your device again.');
    // Blocked after its device asked: the code ends (its device stops polling), the page says why.
    if (await deps.isBlocked(String(code.clientId))) {
      await deny(code, 'the school has blocked this app');
      throw new AppBlocked();
    }
    const seconds = (code.exp ?? nowSeconds()) - nowSeconds();
    const owner = claim ? await claims.claim(code.jti, accountId, seconds) : await claims.owner(code.jti);
    if (owner !== accountId)
      throw new Refusal(
        403,
        'That code was entered by another account. Start the pairing on your device again.',
      );
    return code;
  }

  /** Ends a pending code with `access_denied` (its device stops polling). */
  async function deny(code: DeviceCode, description: string): Promise<void> {
    code.error = 'access_denied';
    code.errorDescription = description;
    await code.save();
  }

  async function enter(ctx: Ctx): Promise<void> {
    const code = await claimedCode(ctx, { claim: true });
    const accountId = ctx.state.account._id;
    const seconds = (code.exp ?? nowSeconds()) - nowSeconds();
    const replaced = await claims.replacePending(accountId, code.jti, seconds);
    if (replaced) {
      const earlier = await provider.DeviceCode.find(replaced, { ignoreExpiration: true });
      if (earlier && !earlier.error && !earlier.accountId && !earlier.isExpired) {
        await deny(earlier, 'replaced by a newer pairing request of the same account');
        void audit.record('device_pairing_denied', {
          ...who(ctx),
          clientId: earlier.clientId,
          details: { reason: 'replaced by a newer request' },
        });
      }
    }
    const client = await provider.Client.find(String(code.clientId));
    if (!client) throw new Refusal(400, 'The app that asked for this code no longer exists.');
    const { offered, beyond } = await withinCeiling(accountId, code);
    const info = (code.deviceInfo ?? {}) as { ip?: unknown; ua?: unknown };
    const requestedFrom = typeof info.ip === 'string' ? info.ip : undefined;
    const near = nearness(requestedFrom, ctx.ip);
    void audit.record('device_pairing_shown', {
      ...who(ctx),
      clientId: code.clientId,
      details: { requested_from: requestedFrom, nearness: near },
    });
    sendPage(
      ctx,
      200,
      confirmPairingPage({
        csrf: ctx.state.csrf,
        userCode: shownCode(normalizeUserCode(ctx.state.form.user_code)),
        client: {
          name: client.clientName,
          clientId: client.clientId,
          kind: clientKind(client),
          selfDeclared: isSelfDeclared(client),
        },
        scopes: offered,
        needsAdmin: beyond,
        durations: durationChoices(new Date(), deps.calendar),
        timezone: deps.calendar.timezone,
        requestedFrom,
        userAgent: typeof info.ua === 'string' && info.ua ? info.ua : undefined,
        approver: ctx.ip,
        nearness: near,
        ago: agoText(nowSeconds() - (code.iat ?? nowSeconds())),
        email: ctx.state.account.email,
      }),
    );
  }

  async function approve(ctx: Ctx): Promise<void> {
    const code = await claimedCode(ctx, { claim: false });
    const accountId = ctx.state.account._id;
    // Only what the signer may grant counts, whatever the form posts.
    const { offered: scopes } = await withinCeiling(accountId, code);
    const choice = decideScopes(scopes, ctx.state.form.scope);
    if (!choice.approved.length) {
      await refuse(ctx, code, 'nothing ticked');
      return;
    }
    const approved = [
      ...(scopes.includes('openid') ? ['openid'] : []),
      ...choice.approved.filter((s) => s !== 'openid'),
    ];
    const session = await provider.Session.get(ctx);
    const resource = typeof code.params?.resource === 'string' ? code.params.resource : undefined;
    // The grant's id starts with the device code's slot tag, so the code (stored before any grant
    // existed) joins the grant's token list and slot (storage/redis-keys.ts, the slot rule).
    const grant = new provider.Grant({
      jti: grantTag(code.jti) + randomBytes(24).toString('base64url'),
      accountId,
      clientId: code.clientId,
    } as never);
    // As a consent does: every scope for tokens without `resource` (the API and userinfo), and the
    // API's scopes for the resource the device named, for tokens bound to it.
    grant.addOIDCScope(approved.join(' '));
    const api = new Set<string>(API_SCOPE_NAMES);
    const forApi = approved.filter((s) => api.has(s));
    if (resource && forApi.length) grant.addResourceScope(resource, forApi.join(' '));
    const duration = chosenDuration(ctx.state.form);
    grant.exp =
      accessEnds(duration, new Date(), deps.calendar) ?? accessEnds('hour', new Date(), deps.calendar)!;
    const grantId = await grant.save();
    Object.assign(code, {
      accountId,
      grantId,
      scope: approved.join(' '),
      amr: session.amr,
      acr: session.acr,
      authTime: session.authTime(),
      sessionUid: session.uid,
      ...(resource ? { resource } : {}),
    });
    await code.save();
    await claims.clearPending(accountId, code.jti);
    void audit.record('device_pairing_approved', {
      ...who(ctx),
      clientId: code.clientId,
      details: {
        scope: approved.join(' '),
        ...(choice.refused.length ? { refused: choice.refused.join(' ') } : {}),
        duration,
        ends: new Date(grant.exp * 1000).toISOString(),
        requested_from: (code.deviceInfo as { ip?: string } | undefined)?.ip,
      },
    });
    sendPage(ctx, 200, pairingDonePage(true));
  }

  /** Ask an admin: records the request for what is beyond the ceiling, then ends the pairing. */
  async function ask(ctx: Ctx): Promise<void> {
    const code = await claimedCode(ctx, { claim: false });
    const accountId = ctx.state.account._id;
    const { beyond } = await withinCeiling(accountId, code);
    const client = await provider.Client.find(String(code.clientId));
    if (!beyond.length || !client) return refuse(ctx, code, 'denied');
    await askAdmin(deps, {
      accountId,
      client: { name: client.clientName, clientId: client.clientId, kind: clientKind(client) },
      scopes: beyond,
      duration: chosenDuration(ctx.state.form),
      requestId: ctx.state.requestId,
      ip: ctx.ip,
    });
    await deny(code, APPROVAL_REQUESTED);
    await claims.clearPending(accountId, code.jti);
    void audit.record('device_pairing_denied', {
      ...who(ctx),
      clientId: code.clientId,
      details: { reason: 'admin approval requested' },
    });
    sendPage(ctx, 200, pairingDonePage(false));
  }

  async function refuse(ctx: Ctx, code: DeviceCode, reason: string): Promise<void> {
    await deny(code, 'The user denied the request');
    await claims.clearPending(ctx.state.account._id, code.jti);
    void audit.record('device_pairing_denied', { ...who(ctx), clientId: code.clientId, details: { reason } });
    sendPage(ctx, 200, pairingDonePage(false));
  }

  return {
    requirePasskey: async function requirePasskey(ctx, next) {
      const accountId = ctx.state.account._id;
      if ((await deps.passkeys.store.count(accountId)) > 0) {
        const session = await provider.Session.get(ctx);
        if (!signedInWithPasskey(session.amr)) {
          sendPage(
            ctx,
            403,
            passkeyFirstPage(signInUrl(deps.baseUrl, { returnTo: 'device', prompt: 'login' })),
          );
          return;
        }
      }
      await next();
    },

    show: function showPairingForm(ctx) {
      showForm(ctx);
      return Promise.resolve();
    },

    submit: async function submitPairing(ctx) {
      try {
        const { step } = ctx.state.form;
        if (step === 'enter') await enter(ctx);
        else if (step === 'approve') await approve(ctx);
        else if (step === 'ask-admin') await ask(ctx);
        else await refuse(ctx, await claimedCode(ctx, { claim: false }), 'denied');
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        showForm(ctx, err.status, err.problem);
      }
    },
  };
}

/** The scopes the device asked for (the baseline when it named none), in the scope list's order. */
function requestedScopes(code: DeviceCode): string[] {
  const asked =
    typeof code.params?.scope === 'string' ? code.params.scope.split(' ') : [...BASELINE_SCOPE_NAMES];
  const wanted = new Set(asked);
  return ALL_SCOPE_NAMES.filter((s) => wanted.has(s));
}
