/**
 * The passkey pages' scripts, served from this origin under `/oauth/assets/` (never a CDN): the
 * `@simplewebauthn/browser` bundle as the package ships it, and the page script (page-script.ts).
 * Both are read once at start-up; the pages load them with their CSP nonce.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { PAGE_ROUTERS, PAGE_SCRIPTS } from '@school/shared';
import { pageRouter } from '../pages/page-router.js';
import { PASSKEY_PAGE_SCRIPT } from './page-script.js';

/** Where the scripts are served (the endpoint table's rows). */
export const WEBAUTHN_LIBRARY_URL = PAGE_SCRIPTS.webauthnLibrary;
export const PASSKEY_SCRIPT_URL = PAGE_SCRIPTS.passkeys;

function libraryBundle(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@simplewebauthn/browser');
  // The package's main entry is script/index.js; its browser bundle is dist/bundle/ of the package.
  return readFileSync(join(dirname(main), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
}

/** The router serving both scripts. */
export function assetsRouter(): Router {
  const serve = (body: string) =>
    function serveScript(ctx: Context) {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = body;
    };
  return pageRouter(PAGE_ROUTERS.assets, {
    webauthnLibrary: { read: [serve(libraryBundle())] },
    passkeys: { read: [serve(PASSKEY_PAGE_SCRIPT)] },
  });
}
