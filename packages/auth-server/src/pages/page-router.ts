/**
 * Builds a page router from its entry in `@school/shared`'s page-routes.ts, the entry the endpoint
 * table's page rows are made from: the router takes one list of steps for each route and method the
 * entry declares (`read`: GET and HEAD, `form`: POST), the compiler asks for every one, and a route
 * the entry does not declare cannot be given. So a page is served exactly when it has a row.
 */
import Router, { type RouterMiddleware } from '@koa/router';
import type { PageRoute, PageRouterSpec } from '@school/shared';

/** The steps of one route, for each method its entry declares. */
export type RouteSteps<R extends PageRoute, State> = (R extends { read: true }
  ? { read: RouterMiddleware<State>[] }
  : unknown) &
  (R extends { form: true } ? { form: RouterMiddleware<State>[] } : unknown);

/** The steps of every route of a router's entry, by the route's name. */
export type PageSteps<S extends PageRouterSpec, State> = {
  [Name in keyof S['routes']]: RouteSteps<S['routes'][Name], State>;
};

/**
 * The router of `spec`: `use` first (on every route), then each route with its steps. Steps for a
 * route or method the entry does not declare are refused, as the compiler refuses them.
 */
export function pageRouter<S extends PageRouterSpec, State extends object>(
  spec: S,
  steps: PageSteps<S, State>,
  use: RouterMiddleware<State>[] = [],
): Router<State> {
  const router = new Router<State>(spec.prefix ? { prefix: spec.prefix } : {});
  for (const step of use) router.use(step);
  const given = steps as Record<
    string,
    { read?: RouterMiddleware<State>[]; form?: RouterMiddleware<State>[] }
  >;
  for (const name of Object.keys(given))
    if (!(name in spec.routes)) throw new Error(`page route "${name}" is not in its router's entry`);
  for (const [name, route] of Object.entries(spec.routes)) {
    const { read, form } = given[name] ?? {};
    if (Boolean(route.read) !== Boolean(read) || Boolean(route.form) !== Boolean(form))
      throw new Error(`page route "${name}" has steps for other methods than its entry declares`);
    if (read) router.get(route.path, ...read);
    if (form) router.post(route.path, ...form);
  }
  return router;
}
