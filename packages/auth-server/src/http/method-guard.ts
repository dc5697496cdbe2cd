/**
 * Answers a request with a method its path does not support with 405 `method_not_allowed` and an
 * `Allow` header (the error table's row), before oidc-provider (which would answer 404, or a plain-text 404 for OPTIONS) or
 * the interaction router (501) see it. CORS preflights are left to oidc-provider.
 */
import type { Middleware } from 'koa';
import { ACCOUNT_PATH, INTERACTION_PATH, MethodNotAllowedError, OAUTH_ROUTES } from '@school/shared';

const READ = ['GET', 'HEAD'];

/** Allowed methods per exact path. */
const EXACT = new Map<string, string[]>([
  ['/.well-known/openid-configuration', READ],
  ['/.well-known/oauth-authorization-server', READ],
  [OAUTH_ROUTES.jwks, READ],
  [OAUTH_ROUTES.registration, ['POST']],
  [OAUTH_ROUTES.token, ['POST']],
  [OAUTH_ROUTES.userinfo, READ], // docs/contract.md: GET with a bearer header
  [OAUTH_ROUTES.revocation, ['POST']],
  [OAUTH_ROUTES.introspection, ['POST']],
  [OAUTH_ROUTES.authorization, READ], // docs/contract.md: a browser redirect (GET)
  [OAUTH_ROUTES.end_session, [...READ, 'POST']], // RP-initiated logout (GET or form POST)
  [`${OAUTH_ROUTES.end_session}/confirm`, ['POST']],
  [`${OAUTH_ROUTES.end_session}/success`, READ],
]);

/** Allowed methods per path pattern (resume and interaction pages). */
const PATTERNS: Array<[RegExp, string[]]> = [
  [new RegExp(`^${OAUTH_ROUTES.authorization}/[^/]+$`), READ],
  [new RegExp(`^${INTERACTION_PATH}/[^/]+$`), READ],
  [new RegExp(`^${INTERACTION_PATH}/[^/]+/(login|confirm|abort|switch)$`), ['POST']],
  // The account pages (account-pages/router.ts): pages are read, forms post to `…/<action>`.
  [new RegExp(`^${ACCOUNT_PATH}(/(apps|signed-in))?$`), READ],
  [new RegExp(`^${ACCOUNT_PATH}/apps/revoke$`), [...READ, 'POST']], // the confirmation page, its form
  [new RegExp(`^${ACCOUNT_PATH}/(clients|activity)$`), READ],
  [new RegExp(`^${ACCOUNT_PATH}/clients/delete$`), [...READ, 'POST']], // the confirmation page, its form
];

/** The methods `path` answers, or undefined for a path this guard does not know. */
export function allowedFor(path: string): string[] | undefined {
  return EXACT.get(path) ?? PATTERNS.find(([re]) => re.test(path))?.[1];
}

/** The middleware. */
export const methodGuard: Middleware = async (ctx, next) => {
  const allowed = allowedFor(ctx.path);
  if (!allowed || allowed.includes(ctx.method)) return next();
  if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) return next(); // CORS preflight
  throw new MethodNotAllowedError(allowed);
};
