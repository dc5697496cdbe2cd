/**
 * The site root, `/`, for a person: a small page saying what this address is, with the ways in (sign
 * in, Connected apps) and the API's documents. The edge sends `/` here; a client that prefers JSON
 * (or takes anything) gets the JSON 404 of every unknown path, so nothing changes for programs. It is
 * a page row of the endpoint table (`GET`, `HEAD`): any other method gets 405 with `Allow` from the
 * step after its router (`wrongMethodOf`, allowed-methods.ts), like every page.
 */
import type Router from '@koa/router';
import { ACCOUNT_PATH, NotFoundError, OAUTH_ROUTES, PAGE_ROUTERS } from '@school/shared';
import { pageRouter } from '../pages/page-router.js';
import { html, layout, pageCsp } from '../pages/html.js';

/** The page; `devicePairing`: device pairing is on, so the page links to where a code is entered. */
export function homePage({ devicePairing = false } = {}): string {
  return layout(
    'School sign-in',
    html`<h1>School sign-in</h1>
      <p>This is the sign-in service of the school’s online platform. Apps and agents connect through it.</p>
      <ul>
        <li><a href="${ACCOUNT_PATH}/apps">Sign in</a> to see the apps you allowed (Connected apps)</li>
        ${
          devicePairing
            ? html`<li>
                <a href="${OAUTH_ROUTES.code_verification}">Pair a device</a>: enter the code an agent or app
                without a browser shows you
              </li>`
            : ''
        }
        <li><a href="/auth.md">How apps connect</a> and <a href="/openapi.json">the API description</a></li>
      </ul>`,
  );
}

/** The router of `/`: `GET` (and `HEAD`) answer the page when the request prefers HTML. */
export function homePageRouter(options: { devicePairing: boolean }): Router {
  return pageRouter(PAGE_ROUTERS.home, {
    home: {
      read: [
        function showHomePage(ctx) {
          if (ctx.accepts('json', 'html') !== 'html')
            throw new NotFoundError(`no endpoint at ${ctx.method} /`);
          ctx.set('Cache-Control', 'no-store');
          ctx.set('Content-Security-Policy', pageCsp());
          ctx.type = 'text/html';
          ctx.body = homePage(options);
        },
      ],
    },
  });
}
