/**
 * `response_mode=form_post` in a real browser.
 *
 * oidc-provider answers form_post with a page whose inline script submits a hidden form to the
 * client's redirect URI (`lib/response_modes/form_post.js`). It adds that script's hash to the page's
 * Content-Security-Policy only when the policy already has a `script-src` directive
 * (`lib/helpers/script_src_sha.js`); ours is helmet's `default-src 'none'`, with none, so browsers
 * blocked the script, and the `<noscript>` fallback button does not show when scripts are merely
 * blocked: the user was left on a blank page although discovery advertised form_post.
 *
 * This post-middleware gives that one response a policy of its own: exactly the page's one script by
 * its SHA-256, the form posting only to the redirect URI's origin, nothing else (no other script,
 * style, image, frame or base URL). Every other response keeps the app-wide policy. Should a future
 * oidc-provider change the page's shape, `formPostPolicy` finds no single script and form, the
 * app-wide policy stays, and the Chromium test of every advertised response mode fails loudly.
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The provider routes that may answer with the form_post page. */
const ROUTES = new Set(['authorization', 'resume']);

/** Undoes oidc-provider's `htmlSafe` (what its page writes into the form's action). */
function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/**
 * The policy for oidc-provider's form_post page `html`: its single inline script by hash, its form
 * action's origin. Undefined when `html` is not such a page.
 */
export function formPostPolicy(html: string): string | undefined {
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)];
  const forms = [...html.matchAll(/<form method="post" action="([^"]*)">/g)];
  if (scripts.length !== 1 || forms.length !== 1) return undefined;
  const target = URL.parse(unescapeHtml(forms[0]![1]!));
  if (!target || !/^https?:$/.test(target.protocol)) return undefined;
  const hash = createHash('sha256').update(scripts[0]![1]!).digest('base64');
  return [
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    `form-action ${target.origin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The post-middleware to `provider.use()`. */
export const formPostCsp: Middleware = async (ctx, next) => {
  await next();
  const oidc = (ctx as unknown as KoaContextWithOIDC).oidc;
  if (!oidc?.route || !ROUTES.has(oidc.route)) return;
  if (oidc.params?.response_mode !== 'form_post' || typeof ctx.body !== 'string') return;
  if (!ctx.response.is('html')) return;
  const policy = formPostPolicy(ctx.body);
  if (policy) ctx.set('Content-Security-Policy', policy);
};
