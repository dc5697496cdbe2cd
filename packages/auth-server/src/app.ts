/**
 * The auth server's HTTP application: one Koa app with security headers and a last-resort error
 * guard, the service routes, each endpoint's steps from the endpoint table (CORS, methods, body
 * cap, rate limit, client authentication, and introspection's shortcut for the API's questions about
 * active access tokens: http/endpoint-steps.ts, http/direct-introspection.ts), the page routers (the passkey scripts under
 * `/oauth/assets/`, login/consent, account), each answering a wrong method on its routes with 405,
 * then oidc-provider mounted at the root (it owns the rest of `/oauth/*`, `/api/oauth/*` and both
 * well-known documents). Unknown paths get a JSON 404.
 */
import { homePageRouter } from './http/home-page.js';
import Koa from 'koa';
import mount from 'koa-mount';
import helmet from 'koa-helmet';
import type { Provider } from 'oidc-provider';
import type { AccountStore } from './accounts/account-store.js';
import type { ApprovalStore } from './accounts/approval-requests.js';
import type { RoleStore } from './accounts/roles.js';
import type { AuthConfig } from './config.js';
import { interactionRouter } from './interactions/router.js';
import { accountRouter } from './account-pages/router.js';
import type { Logger } from './logger.js';
import { requestLog } from './http/request-log.js';
import { pinPublicOrigin } from './http/public-origin.js';
import { unidentifiedClientCount } from './http/unidentified-client-limit.js';
import { rateLimitSteps } from './http/rate-limit.js';
import { isStoredClient } from './storage/client-listing.js';
import { ACCOUNT_CONSOLE_CLIENT_ID } from './clients/client-kind.js';
import { endpointDispatch } from './http/endpoint-steps.js';
import { serviceRoutes } from './http/service-routes.js';
import { wrongMethodOf } from './http/allowed-methods.js';
import { loginGuardFor } from './accounts/login-guard.js';
import { NotFoundError, PROVIDER_ENDPOINTS } from '@school/shared';
import type { RedisClient } from '@school/shared';
import type { AuditLog } from './audit/audit-log.js';
import { errorGuard } from './http/error-guard.js';
import { refuseContentCodings } from './http/content-coding.js';
import type { IntrospectionCount } from './storage/introspection-count.js';
import { authMetrics } from './http/metrics.js';
import { directIntrospection } from './http/direct-introspection.js';
import { devicePolling } from './http/device-polling.js';
import { appReviewGate } from './http/app-review-gate.js';
import { DEVICE_CODE_TTL } from './provider/configuration.js';
import type { CimdResolver } from './cimd/cimd-resolver.js';
import { assetsRouter } from './passkeys/assets.js';
import { devicePairingRouter } from './device-pairing/router.js';
import type { Passkeys } from './passkeys/passkeys.js';

/** What the app is built from. */
export interface AppDeps {
  config: AuthConfig;
  provider: Provider;
  accounts: AccountStore;
  /** The school's roles and their ceilings: what each person may grant apps. */
  roles: RoleStore;
  /** Ask an admin's requests and decisions. */
  approvals: ApprovalStore;
  logger: Logger;
  /** The security audit log. */
  audit: AuditLog;
  /** Where rate limits and login failures are counted. */
  redis: RedisClient;
  /** Checks the dependencies for `/readyz`: each entry `ok` or what is wrong. */
  readiness: () => Promise<Record<string, string>>;
  /**
   * Counts an introspection request and reads the token it presents in one Redis script, for the
   * introspection shortcut (storage/introspection-count.ts, http/direct-introspection.ts).
   */
  countIntrospection: IntrospectionCount;
  /** The metadata-document resolver, whose fetch outcomes the metrics count (absent: none counted). */
  cimd?: Pick<CimdResolver, 'observe'>;
  /** Passkeys and recovery codes (passkeys/passkeys.ts). */
  passkeys: Passkeys;
}

/** Builds the Koa application (not yet listening). */
export function createApp({
  config,
  provider,
  accounts,
  roles,
  approvals,
  logger,
  readiness,
  redis,
  audit,
  countIntrospection,
  cimd,
  passkeys,
}: AppDeps): Koa {
  const app = new Koa();
  app.proxy = config.TRUST_PROXY;
  // Behind the edge, exactly one hop is trusted: the right-most X-Forwarded-For entry is the address
  // the edge saw (it overwrites the header anyway); anything to its left is the client's own claim.
  app.maxIpsCount = 1;
  app.silent = true;
  // Mounted, oidc-provider sets its cookies through this app's context, so this app must sign them
  // with the same keys the provider verifies them with.
  app.keys = config.COOKIE_SECRETS;
  pinPublicOrigin(app, config.BASE_URL);

  // METRICS=false (an operator who scrapes nothing, the bench's comparison): nothing collected, no route.
  const metrics = config.METRICS ? authMetrics({ provider, audit, readiness, cimd }) : undefined;
  app.use(requestLog(logger, metrics));
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      strictTransportSecurity: config.BASE_URL.startsWith('https:') ? { maxAge: 31536000 } : false,
      // same-origin: nothing leaks to other sites, and browsers still send a real Origin on our own
      // form posts (with no-referrer, Chromium sends `Origin: null`).
      referrerPolicy: { policy: 'same-origin' },
      frameguard: { action: 'deny' },
      crossOriginResourcePolicy: false,
    }),
  );

  // Last resort: whatever escaped a route answers in the right shape (http/error-guard.ts).
  app.use(errorGuard(logger));
  app.use(refuseContentCodings);

  // Health and metrics on the service's own port (the edge does not route these).
  app.use(serviceRoutes(readiness, metrics).routes());

  const minute = (points: number) => ({ points, seconds: 60 });
  const unidentifiedClients = unidentifiedClientCount(
    redis,
    config.REDIS_KEY_PREFIX,
    minute(config.RATE_LIMIT_PER_ADDRESS),
    (key) => void audit.record('rate_limited', { details: { reason: 'client authentication refused', key } }),
  );
  // The clients of the configuration (provider/configuration.ts), never stored in Redis.
  const configuredClients = new Set([config.INTROSPECTION_CLIENT_ID, ACCOUNT_CONSOLE_CLIENT_ID]);
  const limits = rateLimitSteps(
    redis,
    config.REDIS_KEY_PREFIX,
    {
      authorizationPerAddress: minute(config.RATE_LIMIT_AUTHORIZATION),
      registrationPerAddress: minute(config.RATE_LIMIT_REGISTRATION),
      tokenPerClient: minute(config.RATE_LIMIT_TOKEN),
      introspectionPerClient: minute(config.RATE_LIMIT_INTROSPECTION),
      revocationPerClient: minute(config.RATE_LIMIT_REVOCATION),
      deviceAuthorizationPerClient: minute(config.RATE_LIMIT_DEVICE_AUTHORIZATION),
      perAddress: minute(config.RATE_LIMIT_PER_ADDRESS),
    },
    async (clientId) =>
      configuredClients.has(clientId) || isStoredClient(redis, config.REDIS_KEY_PREFIX, clientId),
    (ctx, key) =>
      void audit.record('rate_limited', {
        requestId: ctx.state.requestId as string,
        ip: ctx.ip,
        details: { path: ctx.path, key },
      }),
  );
  const shortcuts = {
    ...(config.DIRECT_INTROSPECTION
      ? {
          'direct-introspection': directIntrospection({
            provider,
            clientId: config.INTROSPECTION_CLIENT_ID,
            clientSecret: config.INTROSPECTION_CLIENT_SECRET,
            limits,
            countAndRead: countIntrospection,
            onAnswered: metrics?.directIntrospection,
          }),
        }
      : {}),
    ...(config.DEVICE_PAIRING !== 'off'
      ? { 'device-polling': devicePolling(redis, config.REDIS_KEY_PREFIX, DEVICE_CODE_TTL) }
      : {}),
  };
  app.use(
    endpointDispatch(PROVIDER_ENDPOINTS, { limits, unidentifiedClients, realm: config.BASE_URL, shortcuts }),
  );
  // The school's reviews of apps: a blocked app starts nothing new (http/app-review-gate.ts).
  const reviews = { redis, prefix: config.REDIS_KEY_PREFIX, unreviewed: config.APP_REVIEW_UNREVIEWED };
  app.use(appReviewGate(reviews));
  const loginGuard = loginGuardFor(redis, config);
  // What "how long" on the consent and pairing pages is counted in.
  const calendar = {
    timezone: config.SCHOOL_TIMEZONE,
    termEnds: config.SCHOOL_TERM_ENDS,
    grantTtl: config.GRANT_TTL,
  };
  const interactions = interactionRouter({
    audit,
    loginGuard,
    provider,
    accounts,
    roles,
    approvals,
    passkeys,
    baseUrl: config.BASE_URL,
    csrfSecret: config.COOKIE_SECRETS[0]!,
    calendar,
    ...reviews,
  });
  const accountPages = accountRouter({
    provider,
    accounts,
    roles,
    approvals,
    passkeys,
    audit,
    redis,
    loginGuard,
    prefix: config.REDIS_KEY_PREFIX,
    baseUrl: config.BASE_URL,
    csrfSecret: config.COOKIE_SECRETS[0]!,
    calendar,
    unreviewed: config.APP_REVIEW_UNREVIEWED,
  });
  // Each page router answers its own routes, then a wrong method on one of them (405 with Allow).
  const home = homePageRouter({ devicePairing: config.DEVICE_PAIRING !== 'off' });
  app.use(home.routes());
  app.use(wrongMethodOf(home));
  const assets = assetsRouter();
  app.use(assets.routes());
  app.use(wrongMethodOf(assets));
  app.use(interactions.routes());
  app.use(wrongMethodOf(interactions));
  app.use(accountPages.routes());
  app.use(wrongMethodOf(accountPages));
  if (config.DEVICE_PAIRING !== 'off') {
    const pairing = devicePairingRouter({
      provider,
      accounts,
      roles,
      approvals,
      audit,
      passkeys,
      redis,
      prefix: config.REDIS_KEY_PREFIX,
      baseUrl: config.BASE_URL,
      csrfSecret: config.COOKIE_SECRETS[0]!,
      calendar,
      wrongCodes: {
        perAccount: config.DEVICE_CODE_MAX_WRONG_PER_ACCOUNT,
        perAddress: config.DEVICE_CODE_MAX_WRONG_PER_ADDRESS,
        windowSeconds: config.LOGIN_WINDOW,
      },
      unreviewed: config.APP_REVIEW_UNREVIEWED,
    });
    app.use(pairing.routes());
    app.use(wrongMethodOf(pairing));
  }
  app.use(mount(provider));

  app.use((ctx) => {
    throw new NotFoundError(`no endpoint at ${ctx.method} ${ctx.path}`);
  });
  return app;
}
