/**
 * The device pairing page at `/oauth/device` (RFC 8628's verification URI), mounted only when
 * DEVICE_PAIRING is on, in front of oidc-provider, whose own user-code pages at this path it replaces
 * (pairing-steps.ts). Built like the account pages: never cached, the signed-in person first (a
 * sign-in started here comes back here), a passkey sign-in when the account has a passkey, the form
 * checked against its schema, its CSRF token and its Origin.
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { OAUTH_ROUTES, type RedisClient } from '@school/shared';
import type { Provider } from 'oidc-provider';
import type { AccountStore } from '../accounts/account-store.js';
import { checkAccountForm, requireSignIn, type AccountState } from '../account-pages/signed-in.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AccessCalendar } from '../interactions/access-duration.js';
import { CsrfTokens } from '../pages/csrf.js';
import { noStore } from '../pages/error-page.js';
import type { Passkeys } from '../passkeys/passkeys.js';
import { admissionOf, type UnreviewedMeans } from '../storage/app-reviews.js';
import { PairingClaims } from './pairing-claims.js';
import type { CeilingDeps } from '../interactions/ceilings.js';
import { pairingForm, pairingSteps } from './pairing-steps.js';
import { WrongCodeGuard, type WrongCodeSettings } from './wrong-code-guard.js';

/** What the page needs. */
export interface PairingPageDeps extends CeilingDeps {
  provider: Provider;
  accounts: AccountStore;
  audit: AuditLog;
  passkeys: Passkeys;
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  baseUrl: string;
  csrfSecret: string;
  calendar: AccessCalendar;
  wrongCodes: WrongCodeSettings;
  /** APP_REVIEW_UNREVIEWED: how the school's app reviews read an unreviewed app. */
  unreviewed: UnreviewedMeans;
}

/** Builds the page's router. */
export function devicePairingRouter(deps: PairingPageDeps): Router<AccountState> {
  const csrf = new CsrfTokens(deps.csrfSecret);
  const signedIn = requireSignIn(deps.provider, deps.accounts, csrf, deps.baseUrl, 'device');
  const forms = bodyParser({ enableTypes: ['form'], formLimit: '16kb', encoding: 'utf-8' });
  const steps = pairingSteps({
    provider: deps.provider,
    audit: deps.audit,
    passkeys: deps.passkeys,
    claims: new PairingClaims(deps.redis, deps.prefix),
    wrongCodes: new WrongCodeGuard(deps.redis, deps.prefix, deps.wrongCodes),
    calendar: deps.calendar,
    baseUrl: deps.baseUrl,
    isBlocked: async (clientId) =>
      (await admissionOf(deps.redis, deps.prefix, clientId, deps.unreviewed)) === 'blocked',
    accounts: deps.accounts,
    roles: deps.roles,
    approvals: deps.approvals,
  });
  const check = checkAccountForm(pairingForm, { csrf, ownOrigin: new URL(deps.baseUrl).origin });
  const router = new Router<AccountState>();
  router.use(OAUTH_ROUTES.code_verification, noStore);
  router.get(OAUTH_ROUTES.code_verification, signedIn, steps.requirePasskey, steps.show);
  router.post(OAUTH_ROUTES.code_verification, forms, signedIn, steps.requirePasskey, check, steps.submit);
  return router;
}
