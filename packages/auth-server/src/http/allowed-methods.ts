/**
 * Answers a request with a method its route does not take with 405 `method_not_allowed` and an
 * `Allow` header (the error table's row), before oidc-provider (which would answer 404, or a
 * plain-text 404 for OPTIONS) or a page router (which would pass it on to the 404) sees it. CORS
 * preflights go on: the CORS step answers those of open routes, oidc-provider the rest.
 */
import { MethodNotAllowedError } from '@school/shared';
import type { Context, Middleware } from 'koa';

/** Whether the request is a CORS preflight, which no route lists as a method. */
const isPreflight = (ctx: Context) =>
  ctx.method === 'OPTIONS' && Boolean(ctx.get('access-control-request-method'));

/** A router's route lookup (`@koa/router`'s `match`). */
interface RouteMatcher {
  match(path: string, method: string): { path: ReadonlyArray<{ methods: string[] }> };
}

/** The order `Allow` lists methods in. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The step of a route taking `methods`. */
export function allowMethods(methods: readonly string[]): Middleware {
  return async function allowMethods(ctx, next) {
    if (methods.includes(ctx.method) || isPreflight(ctx)) {
      await next();
      return;
    }
    throw new MethodNotAllowedError(methods);
  };
}

/**
 * The step after a router's routes: a path one of its routes matches, asked with a method none of
 * them takes, is 405 with the methods they do take.
 */
export function wrongMethodOf(router: RouteMatcher): Middleware {
  return async function answerWrongMethod(ctx, next) {
    const taken = new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods));
    if (taken.size === 0 || taken.has(ctx.method) || isPreflight(ctx)) {
      await next();
      return;
    }
    throw new MethodNotAllowedError(ORDER.filter((m) => taken.has(m)));
  };
}
