/**
 * The endpoint table (`@school/shared` oauth-endpoints.ts) against the routes the auth server really
 * serves, found in the running server, never in the table: oidc-provider's router (its routes
 * recorded as the provider registers them), the page routers and the app's own routes (the routers
 * among the app's middleware). Every served route needs a row, every row a served route; a page
 * answers exactly its row's methods and 405 with `Allow` for every other; a method oidc-provider
 * serves that the row does not list is 405 too.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ENDPOINTS, type Endpoint } from '@school/shared';
import type { Provider } from 'oidc-provider';
import { startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';

/** One route as a router holds it. */
interface Route {
  method: string;
  path: string;
}

const VERBS = ['get', 'post', 'put', 'delete', 'options'] as const;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The class of oidc-provider's router: the one a served request was routed by (`ctx.router`), read
 * from a provider's own answer to a discovery request.
 */
async function providerRouterClass(provider: Provider): Promise<{ prototype: Record<string, unknown> }> {
  let found: { constructor: { prototype: Record<string, unknown> } } | undefined;
  provider.middleware.unshift(async (ctx, next) => {
    await next();
    found ??= (ctx as unknown as { router?: typeof found }).router;
  });
  const handle = provider.callback();
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).arrayBuffer();
  await new Promise((done) => server.close(done));
  provider.middleware.shift();
  if (!found) throw new Error('the discovery request was not routed');
  return found.constructor;
}

/** Device pairing on, so that its routes (served only then) are held against their rows too. */
const EVERY_ROUTE = { DEVICE_PAIRING: 'all' };

/** Starts a server while recording every route its oidc-provider registers. */
async function startRecordingProviderRoutes(
  routerClass: { prototype: Record<string, unknown> },
  routes: Route[],
): Promise<TestAuthServer> {
  const originals = VERBS.map((verb) => [verb, routerClass.prototype[verb]] as const);
  for (const [verb, original] of originals)
    routerClass.prototype[verb] = function (this: unknown, name: string, path: string, ...rest: unknown[]) {
      routes.push({ method: verb.toUpperCase(), path });
      if (verb === 'get') routes.push({ method: 'HEAD', path });
      return (original as (...args: unknown[]) => unknown).call(this, name, path, ...rest);
    };
  try {
    return await startTestAuthServer(EVERY_ROUTE);
  } finally {
    for (const [verb, original] of originals) routerClass.prototype[verb] = original;
  }
}

/** A `@koa/router` router: the dispatch middleware it mounts carries it. */
interface KoaRouter {
  stack: Array<{ path: string; methods: string[] }>;
}

/** The routes of every router mounted on the app. */
function appRouterRoutes(auth: TestAuthServer): Route[] {
  return auth.running.app.middleware
    .map((mw) => (mw as { router?: KoaRouter }).router)
    .filter((router): router is KoaRouter => router !== undefined)
    .flatMap((router) =>
      router.stack.flatMap((layer) =>
        layer.methods.map((method) => ({ method, path: layer.path.replace(/(.)\/$/, '$1') })),
      ),
    );
}

const rowAt = (path: string): Endpoint | undefined => ENDPOINTS.find((e) => e.path === path);
/** A concrete URL path for a route's template. */
const concrete = (path: string) => path.replace(/:[^/]+/g, 'x');
const allowOf = (methods: readonly string[]) => METHODS.filter((m) => methods.includes(m)).join(', ');

let auth: TestAuthServer;
const providerRoutes: Route[] = [];
let routerRoutes: Route[];

beforeAll(async () => {
  const first = await startTestAuthServer(EVERY_ROUTE);
  const routerClass = await providerRouterClass(first.running.provider).finally(() => first.stop());
  auth = await startRecordingProviderRoutes(routerClass, providerRoutes);
  routerRoutes = appRouterRoutes(auth);
}, 60_000);

afterAll(async () => {
  await auth?.stop();
});

describe('every served route against the endpoint table', () => {
  it('found the routes of oidc-provider and of the app routers', () => {
    expect(providerRoutes.map((r) => r.path)).toContain('/api/oauth/token');
    expect(routerRoutes.map((r) => r.path)).toContain('/oauth/interaction/:uid/login');
    expect(routerRoutes.map((r) => r.path)).toContain('/healthz');
  });

  it('has a row of oidc-provider for each route oidc-provider serves, and the reverse', () => {
    const served = [...new Set(providerRoutes.map((r) => r.path))].sort();
    const unlisted = served.filter((path) => rowAt(path)?.kind !== 'oauth');
    expect(unlisted).toEqual([]);
    const rows = ENDPOINTS.filter((e) => e.kind === 'oauth').map((e) => e.path);
    expect(rows.filter((path) => !served.includes(path))).toEqual([]);
  });

  it('lists no method oidc-provider does not serve', () => {
    const claimed = ENDPOINTS.filter((e) => e.kind === 'oauth').flatMap((e) =>
      e.methods.map((method) => ({ method, path: e.path })),
    );
    const notServed = claimed.filter(
      (c) => !providerRoutes.some((r) => r.path === c.path && r.method === c.method),
    );
    expect(notServed).toEqual([]);
  });

  it('answers 405 with Allow for every method oidc-provider serves that a row does not list', async () => {
    const refused = providerRoutes.filter((r) => !rowAt(r.path)!.methods.includes(r.method as never));
    expect(refused.length).toBeGreaterThan(0);
    for (const { method, path } of refused) {
      const res = await fetch(`${auth.issuer}${concrete(path)}`, { method });
      await res.arrayBuffer();
      expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow: allowOf(rowAt(path)!.methods),
      });
    }
  });

  it('has a page or service row for each route of the app routers, the page rows with its methods', () => {
    const own = routerRoutes.filter((r) => rowAt(r.path)?.kind !== 'oauth');
    const unlisted = own.filter((r) => !['page', 'service'].includes(rowAt(r.path)?.kind ?? ''));
    expect(unlisted).toEqual([]);
    for (const path of new Set(own.filter((r) => rowAt(r.path)!.kind === 'page').map((r) => r.path))) {
      const methods = own.filter((r) => r.path === path).map((r) => r.method);
      expect({ path, methods: allowOf(methods) }).toEqual({ path, methods: allowOf(rowAt(path)!.methods) });
    }
    const rows = ENDPOINTS.filter((e) => e.kind === 'page' || e.kind === 'service').map((e) => e.path);
    expect(rows.filter((path) => !own.some((r) => r.path === path))).toEqual([]);
  });
});

describe('a path written otherwise', () => {
  it('gets its row’s steps whatever the letter case and with a trailing slash, as oidc-provider routes it', async () => {
    for (const path of ['/API/OAuth/Token', '/api/oauth/token/']) {
      const res = await fetch(`${auth.issuer}${path}`, { method: 'PUT' });
      await res.arrayBuffer();
      expect({ path, status: res.status, allow: res.headers.get('allow') }).toEqual({
        path,
        status: 405,
        allow: 'POST',
      });
    }
  });
});

describe('a wrong method on a page', () => {
  it('answers 405 with Allow on every page route, for every method the route does not take', async () => {
    const pages = new Map<string, string[]>();
    for (const { method, path } of routerRoutes.filter((r) => rowAt(r.path)?.kind === 'page'))
      pages.set(path, [...(pages.get(path) ?? []), method]);
    expect(pages.size).toBeGreaterThan(15);
    for (const [path, methods] of pages) {
      for (const method of METHODS.filter((m) => !methods.includes(m))) {
        const res = await fetch(`${auth.issuer}${concrete(path)}`, { method, redirect: 'manual' });
        await res.arrayBuffer();
        expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({
          method,
          path,
          status: 405,
          allow: allowOf(methods),
        });
      }
    }
  });
});
