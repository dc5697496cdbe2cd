/**
 * The school's reviews of apps (storage/app-reviews.ts), checked in front of oidc-provider where an
 * app starts something new:
 *
 * - the authorization endpoint: a blocked app's request ends on the school's page saying so (403
 *   `app_blocked`, pages/error-page.ts), never a redirect back to the app; an app waiting for a review
 *   goes on to sign-in, and the consent step ends it (interactions/app-review.ts), since a review
 *   request names who asked;
 * - the token endpoint (every grant: a code, a refresh token, a device code): a blocked app gets
 *   `400 unauthorized_client`, so no token is issued to it even if a grant raced the block;
 * - the device authorization endpoint: a blocked app, and one waiting for a review while the school
 *   reviews new apps first, get `400 unauthorized_client` (nobody is signed in there to ask for one);
 *   a code given before a block ends on the pairing page (device-pairing/pairing-steps.ts).
 *
 * The client id is the one the request names (the query or the form; the token endpoint takes client
 * authentication in the body only, strict-client-authentication.ts), read before oidc-provider
 * authenticates it: what is refused is the app the request names, whoever sends it. A path finds its
 * route as endpoint-steps.ts finds it (any letter case, one trailing slash).
 */
import { OAUTH_ROUTES, UnauthorizedClientError, type RedisClient } from '@school/shared';
import type { Context, Middleware } from 'koa';
import { AppBlocked } from '../pages/error-page.js';
import { admissionOf, type UnreviewedMeans } from '../storage/app-reviews.js';
import { requestForm } from './request-form.js';

/** What the gate reads. */
export interface AppReviewGateDeps {
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** APP_REVIEW_UNREVIEWED. */
  unreviewed: UnreviewedMeans;
}

type Route = 'authorization' | 'token' | 'device_authorization';

const ROUTES = new Map<string, Route>(
  (['authorization', 'token', 'device_authorization'] as const).map((r) => [
    OAUTH_ROUTES[r].toLowerCase(),
    r,
  ]),
);

/** The client id the request names, or undefined. */
async function namedClient(ctx: Context): Promise<string | undefined> {
  if (ctx.method === 'GET' || ctx.method === 'HEAD') {
    const id = ctx.query.client_id;
    return typeof id === 'string' && id ? id : undefined;
  }
  if (ctx.method !== 'POST') return undefined;
  const form = await requestForm(ctx);
  return typeof form === 'string' ? undefined : (form.get('client_id') ?? undefined);
}

/** The step; mount it after the endpoint steps, before oidc-provider. */
export function appReviewGate(deps: AppReviewGateDeps): Middleware {
  return async function appReviewGate(ctx, next) {
    const path = ctx.path.length > 1 && ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : ctx.path;
    const route = ROUTES.get(path.toLowerCase());
    const clientId = route ? await namedClient(ctx) : undefined;
    if (!route || !clientId) {
      await next();
      return;
    }
    const admission = await admissionOf(deps.redis, deps.prefix, clientId, deps.unreviewed);
    if (admission === 'blocked') {
      if (route === 'authorization') throw new AppBlocked();
      throw new UnauthorizedClientError('the school has blocked this app');
    }
    if (admission === 'ask-admin' && route === 'device_authorization')
      throw new UnauthorizedClientError(
        'the school reviews new apps first: ask an admin of the school to allow this app, then pair again',
      );
    await next();
  };
}
