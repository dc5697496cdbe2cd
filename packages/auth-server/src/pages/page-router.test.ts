/**
 * A page router serves exactly the routes and methods of its entry: the entry the endpoint table's
 * page rows are made from.
 */
import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS, PAGE_ROUTERS, pagePath, type PageRouterSpec } from '@school/shared';
import { pageRouter, type PageSteps } from './page-router.js';

const spec = {
  prefix: '/oauth/example',
  routes: {
    home: { path: '/', read: true },
    list: { path: '/list', read: true },
    remove: { path: '/list/remove', read: true, form: true },
    add: { path: '/list/add', form: true },
  },
} as const satisfies PageRouterSpec;

const step = () => undefined;
/** What a router serves, as `METHOD path` lines. */
const served = (router: { stack: Array<{ path: string | RegExp; methods: string[] }> }) =>
  router.stack.flatMap((layer) => layer.methods.map((m) => `${m} ${String(layer.path)}`)).sort();

describe('a page router', () => {
  it('serves each route of its entry with the methods it declares, and nothing else', () => {
    const router = pageRouter(spec, {
      home: { read: [step] },
      list: { read: [step] },
      remove: { read: [step], form: [step] },
      add: { form: [step] },
    });
    expect(served(router)).toEqual(
      [
        'GET /oauth/example',
        'HEAD /oauth/example',
        'GET /oauth/example/list',
        'HEAD /oauth/example/list',
        'GET /oauth/example/list/remove',
        'HEAD /oauth/example/list/remove',
        'POST /oauth/example/list/remove',
        'POST /oauth/example/list/add',
      ].sort(),
    );
  });

  it('refuses steps for a route its entry does not declare', () => {
    const steps = {
      home: { read: [step] },
      list: { read: [step] },
      remove: { read: [step], form: [step] },
      add: { form: [step] },
      approvals: { read: [step] },
    } as unknown as PageSteps<typeof spec, object>;
    expect(() => pageRouter(spec, steps)).toThrow('page route "approvals" is not in its router\'s entry');
  });

  it('refuses a route without the steps of a method its entry declares, or with others', () => {
    const missing = {
      home: { read: [step] },
      list: { read: [step] },
      remove: { read: [step] },
      add: { form: [step] },
    };
    expect(() => pageRouter(spec, missing as unknown as PageSteps<typeof spec, object>)).toThrow(
      'page route "remove"',
    );
    const extra = {
      home: { read: [step] },
      list: { read: [step], form: [step] },
      remove: { read: [step], form: [step] },
      add: { form: [step] },
    };
    expect(() => pageRouter(spec, extra as unknown as PageSteps<typeof spec, object>)).toThrow(
      'page route "list"',
    );
  });
});

describe('the endpoint table', () => {
  it('has a page row for every route of every page router, with its methods', () => {
    const rows = Object.values(PAGE_ROUTERS).flatMap((router: PageRouterSpec) =>
      Object.values(router.routes).map((route) => ENDPOINTS.find((e) => e.path === pagePath(router, route))),
    );
    expect(rows.every((row) => row?.kind === 'page')).toBe(true);
    expect(ENDPOINTS.find((e) => e.path === '/oauth/account/staff/disable')?.methods).toEqual(['POST']);
    expect(ENDPOINTS.find((e) => e.path === '/oauth/account/apps/revoke')?.methods).toEqual([
      'GET',
      'HEAD',
      'POST',
    ]);
    expect(ENDPOINTS.find((e) => e.path === '/oauth/account')?.methods).toEqual(['GET', 'HEAD']);
  });
});
