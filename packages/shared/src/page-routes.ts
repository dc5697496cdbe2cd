/**
 * The auth server's pages and service routes, declared once: each page router is built from its entry
 * here (the auth server's pages/page-router.ts, which takes exactly one set of steps for each route
 * and no other), and the endpoint table's `page` and `service` rows are made from the same entries
 * (oauth-endpoints.ts). A page route therefore cannot be served without its row, nor have a row
 * without being served. Adding a page is one entry here; the compiler then asks for its steps in the
 * router that serves it.
 *
 * A route with `read` answers GET and HEAD, with `form` POST; paths are relative to the router's
 * `prefix` and written as routers write them (`:name` stands for one path segment).
 */
import { METRICS_PATH } from './metrics.js';
import { ACCOUNT_PATH, INTERACTION_PATH, PAGE_SCRIPTS } from './oauth-routes.js';

/** One page route: the page (`read`), the form it posts (`form`), or both. */
export interface PageRoute {
  readonly path: string;
  readonly read?: true;
  readonly form?: true;
}

/** One router's routes, by name. */
export interface PageRouterSpec {
  readonly prefix: string;
  readonly routes: Readonly<Record<string, PageRoute>>;
}

const page = { read: true } as const;
const form = { form: true } as const;
/** A confirmation page of a destructive action with its form. */
const confirmed = { read: true, form: true } as const;

/** Every page router of the auth server, by name. */
export const PAGE_ROUTERS = {
  /** The home page (a person's way in; the JSON 404 for programs): http/home-page.ts. */
  home: { prefix: '', routes: { home: { path: '/', ...page } } },
  /** The passkey forms' scripts, loaded by the sign-in and Your account pages: passkeys/assets.ts. */
  assets: {
    prefix: '',
    routes: {
      webauthnLibrary: { path: PAGE_SCRIPTS.webauthnLibrary, ...page },
      passkeys: { path: PAGE_SCRIPTS.passkeys, ...page },
    },
  },
  /** The login and consent pages: the page, then the forms it posts (interactions/router.ts). */
  interactions: {
    prefix: INTERACTION_PATH,
    routes: {
      page: { path: '/:uid', ...page },
      login: { path: '/:uid/login', ...form },
      passkey: { path: '/:uid/passkey', ...form },
      recovery: { path: '/:uid/recovery', ...form },
      confirm: { path: '/:uid/confirm', ...form },
      askAdmin: { path: '/:uid/ask-admin', ...form },
      abort: { path: '/:uid/abort', ...form },
      requestReview: { path: '/:uid/request-review', ...form },
      switchAccount: { path: '/:uid/switch', ...form },
    },
  },
  /**
   * The account pages (account-pages/router.ts): pages are read, forms post to `…/<action>`, and a
   * destructive action has a confirmation page with its form at one path.
   */
  account: {
    prefix: ACCOUNT_PATH,
    routes: {
      home: { path: '/', ...page },
      signedIn: { path: '/signed-in', ...page },
      apps: { path: '/apps', ...page },
      revokeApp: { path: '/apps/revoke', ...confirmed },
      dropUnused: { path: '/apps/drop-unused', ...form },
      clients: { path: '/clients', ...page },
      deleteClient: { path: '/clients/delete', ...confirmed },
      activity: { path: '/activity', ...page },
      account: { path: '/account', ...page },
      changePassword: { path: '/account/password', ...form },
      signOutEverywhere: { path: '/account/sign-out-everywhere', ...confirmed },
      addPasskey: { path: '/account/passkeys', ...form },
      removePasskey: { path: '/account/passkeys/remove', ...confirmed },
      confirmPasskey: { path: '/account/confirm/passkey', ...form },
      confirmPassword: { path: '/account/confirm/password', ...form },
      recoveryCodes: { path: '/account/recovery-codes', ...confirmed },
      staff: { path: '/staff', ...page },
      staffConfirm: { path: '/staff/confirm', ...page },
      createStaff: { path: '/staff/create', ...form },
      unlock: { path: '/staff/unlock', ...form },
      passwordSignIn: { path: '/staff/password-sign-in', ...form },
      resetPassword: { path: '/staff/reset-password', ...form },
      removePasskeys: { path: '/staff/remove-passkeys', ...form },
      disable: { path: '/staff/disable', ...form },
      enable: { path: '/staff/enable', ...form },
      remove: { path: '/staff/remove', ...form },
      promote: { path: '/staff/promote', ...form },
      demote: { path: '/staff/demote', ...form },
      roles: { path: '/roles', ...page },
      createRole: { path: '/roles/create', ...form },
      roleCeiling: { path: '/roles/ceiling', ...form },
      removeRole: { path: '/roles/remove', ...form },
      approvals: { path: '/approvals', ...page },
      decideApproval: { path: '/approvals/decide', ...form },
      appReviews: { path: '/app-reviews', read: true, form: true },
      register: { path: '/register', ...page },
      registerExport: { path: '/register/export', ...page },
      termReview: { path: '/term-review', read: true, form: true },
    },
  },
} as const satisfies Record<string, PageRouterSpec>;

/**
 * The routes on the auth server's own port that the edge does not route (http/service-routes.ts):
 * liveness, readiness and the Prometheus metrics. They take any method.
 */
export const SERVICE_ROUTES = {
  healthz: '/healthz',
  readyz: '/readyz',
  metrics: METRICS_PATH,
} as const;

/** A route's full path: the prefix, then the path (the prefix alone for `/` under a prefix). */
export function pagePath(spec: PageRouterSpec, route: PageRoute): string {
  return spec.prefix && route.path === '/' ? spec.prefix : `${spec.prefix}${route.path}`;
}
