/**
 * The auth server's HTTP application: one Koa app with security headers and a last-resort error
 * guard, rate limits and client-authentication checks, the direct introspection step (the
 * introspection client's questions about active access tokens, answered with oidc-provider's models:
 * provider/direct-introspection.ts), the login/consent and account routers, then oidc-provider
 * mounted at the root after the passkey scripts (`/oauth/assets/`; it owns `/oauth/*`, `/api/oauth/*` and both well-known documents). Unknown
 * paths get a JSON 404.
 */
import Koa from 'koa';
import mount from 'koa-mount';
import helmet from 'koa-helmet';
import type { Provider } from 'oidc-provider';
import type { AccountStore } from './accounts/account-store.js';
import type { AuthConfig } from './config.js';
import { interactionRouter } from './interactions/router.js';
import { accountRouter } from './account-pages/router.js';
import type { Logger } from './logger.js';
import { requestLog } from './http/request-log.js';
import { pinPublicOrigin } from './http/public-origin.js';
import { methodGuard } from './http/method-guard.js';
import { cors } from './http/cors.js';
import { unidentifiedClientCount } from './http/unidentified-client-limit.js';
import { strictClientAuthentication } from './http/strict-client-authentication.js';
import { rateLimit } from './http/rate-limit.js';
import { loginGuardFor } from './interactions/login-guard.js';
import { METRICS_PATH, NotFoundError, OAUTH_ROUTES } from '@school/shared';
import type { RedisClient } from '@school/shared';
import type { AuditLog } from './audit/audit-log.js';
import { errorGuard } from './http/error-guard.js';
import { refuseContentCodings } from './http/content-coding.js';
import type { CountWithRead } from './storage/introspection-count.js';
import { authMetrics } from './http/metrics.js';
import { directIntrospection } from './provider/direct-introspection.js';
import type { CimdResolver } from './cimd/cimd-resolver.js';
import { assetsRouter } from './passkeys/assets.js';
import type { Passkeys } from './passkeys/passkeys.js';

/** What the app is built from. */
export interface AppDeps {
  config: AuthConfig;
  provider: Provider;
  accounts: AccountStore;
  logger: Logger;
  /** The security audit log. */
  audit: AuditLog;
  /** Where rate limits and login failures are counted. */
  redis: RedisClient;
  /** Checks the dependencies for `/readyz`: each entry `ok` or what is wrong. */
  readiness: () => Promise<Record<string, string>>;
  /**
   * Counts an introspection request and reads the token it presents in one Redis script
   * (storage/introspection-count.ts). Absent: the rate limiter counts, oidc-provider reads.
   */
  countIntrospection?: CountWithRead;
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

  // Before the error guard, so an error answer keeps the CORS headers a browser needs to read it.
  app.use(cors);
  // Last resort: whatever escaped a route answers in the right shape (http/error-guard.ts).
  app.use(errorGuard(logger));
  app.use(refuseContentCodings);

  // Health and metrics on the service's own port (the edge does not route these): liveness,
  // readiness that checks what every request needs, and the Prometheus metrics (http/metrics.ts).
  app.use(async (ctx, next) => {
    if (metrics && ctx.path === METRICS_PATH) {
      const { contentType, body } = await metrics.scrape();
      ctx.type = contentType;
      ctx.body = body;
    } else if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
    } else if (ctx.path === '/readyz') {
      const checks = await readiness();
      ctx.status = Object.values(checks).every((c) => c === 'ok') ? 200 : 503;
      ctx.body = { status: ctx.status === 200 ? 'ok' : 'unavailable', checks };
    } else {
      await next();
    }
  });

  const minute = (points: number) => ({ points, seconds: 60 });
  app.use(
    rateLimit(
      redis,
      config.REDIS_KEY_PREFIX,
      {
        authorizationPerAddress: minute(config.RATE_LIMIT_AUTHORIZATION),
        registrationPerAddress: minute(config.RATE_LIMIT_REGISTRATION),
        tokenPerClient: minute(config.RATE_LIMIT_TOKEN),
        introspectionPerClient: minute(config.RATE_LIMIT_INTROSPECTION),
        revocationPerClient: minute(config.RATE_LIMIT_REVOCATION),
        perAddress: minute(config.RATE_LIMIT_PER_ADDRESS),
      },
      OAUTH_ROUTES,
      (ctx, key) =>
        void audit.record('rate_limited', {
          requestId: ctx.state.requestId as string,
          ip: ctx.ip,
          details: { path: ctx.path, key },
        }),
      countIntrospection ? { [OAUTH_ROUTES.introspection]: countIntrospection } : {},
    ),
  );
  const unidentifiedClients = unidentifiedClientCount(
    redis,
    config.REDIS_KEY_PREFIX,
    minute(config.RATE_LIMIT_PER_ADDRESS),
    (key) => void audit.record('rate_limited', { details: { reason: 'client authentication refused', key } }),
  );
  app.use(strictClientAuthentication(OAUTH_ROUTES, config.BASE_URL, unidentifiedClients));
  const loginGuard = loginGuardFor(redis, config);
  const interactions = interactionRouter({
    audit,
    loginGuard,
    provider,
    accounts,
    passkeys,
    baseUrl: config.BASE_URL,
    csrfSecret: config.COOKIE_SECRETS[0]!,
    calendar: {
      timezone: config.SCHOOL_TIMEZONE,
      termEnds: config.SCHOOL_TERM_ENDS,
      grantTtl: config.GRANT_TTL,
    },
  });
  const accountPages = accountRouter({
    provider,
    accounts,
    passkeys,
    audit,
    redis,
    loginGuard,
    prefix: config.REDIS_KEY_PREFIX,
    baseUrl: config.BASE_URL,
    csrfSecret: config.COOKIE_SECRETS[0]!,
  });
  app.use(methodGuard);
  if (config.DIRECT_INTROSPECTION) {
    app.use(
      directIntrospection({
        provider,
        path: OAUTH_ROUTES.introspection,
        clientId: config.INTROSPECTION_CLIENT_ID,
        clientSecret: config.INTROSPECTION_CLIENT_SECRET,
        onAnswered: metrics?.directIntrospection,
      }),
    );
  }
  app.use(assetsRouter().routes());
  app.use(interactions.routes());
  app.use(accountPages.routes());
  app.use(mount(provider));

  app.use(async (ctx) => {
    throw new NotFoundError(`no endpoint at ${ctx.method} ${ctx.path}`);
  });
  return app;
}
