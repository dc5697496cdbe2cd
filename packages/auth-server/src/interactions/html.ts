/**
 * A tiny HTML builder: a tagged template that escapes every interpolated value (with `escape-html`)
 * unless it is already {@link SafeHtml}. Pages are plain server-rendered HTML with no script, so they
 * work without JavaScript and under a CSP that forbids all scripts.
 */
import { createHash } from 'node:crypto';
import escapeHtml from 'escape-html';
import type { Context } from 'koa';

/** HTML that has been built by {@link html} and must not be escaped again. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** Builds HTML, escaping every interpolated value. */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f3f4f6;color:#111827}
main{box-sizing:border-box;background:#fff;max-width:28rem;width:calc(100% - 2rem);margin:1rem 0;padding:2rem;border-radius:12px;box-shadow:0 1px 3px #0002;overflow-wrap:anywhere}
@media (max-width:30rem){main{padding:1.25rem}}
h1{font-size:1.35rem;margin:0 0 1rem}
p{line-height:1.5}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #9ca3af;border-radius:6px;font-size:1rem}
button{margin-top:1.25rem;padding:.65rem 1.2rem;border:0;border-radius:6px;font-size:1rem;cursor:pointer;background:#1d4ed8;color:#fff}
button.secondary{background:#e5e7eb;color:#111827}
button.link{margin:0;padding:0;background:none;color:#1d4ed8;text-decoration:underline;font-size:inherit}
form.switch{font-size:.9rem;margin-top:1rem}
a.button{display:inline-block;padding:.65rem 1.2rem;border-radius:6px;background:#1d4ed8;color:#fff;text-decoration:none}
.warning{background:#fef3c7;color:#78350f;padding:.75rem;border-radius:6px}
.changes{color:#991b1b}
ul.scopes.changes li::marker{content:'✎ '}
.actions{display:flex;gap:.75rem;flex-wrap:wrap}
.actions form{margin:0}
.error{background:#fee2e2;color:#991b1b;padding:.75rem;border-radius:6px}
.note{font-size:.9rem;color:#4b5563}
.tag{font-size:.8rem;background:#fef3c7;color:#92400e;padding:.1rem .4rem;border-radius:4px;white-space:nowrap}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.3rem 0}
code{background:#f3f4f6;padding:.05rem .3rem;border-radius:4px}
@media (prefers-color-scheme:dark){body{background:#111827;color:#f9fafb}main{background:#1f2937}
input[type=email],input[type=password]{background:#111827;color:#f9fafb}code{background:#374151}.note{color:#d1d5db}
.changes{color:#fca5a5}}
`;

/** The CSP hash of the one stylesheet every page inlines. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

// Built by concatenation, not inside an html`` template, so that no formatter can add whitespace
// to the element's content and break the hash above.
const STYLE_ELEMENT = new SafeHtml('<style>' + STYLE + '</style>');

/**
 * The Content-Security-Policy of a page: no scripts, only our stylesheet, no framing, forms posting
 * to this origin and (after the redirects that follow a submission) to `formTargets`.
 */
export function pageCsp(formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    "img-src 'self' data:",
    `form-action 'self' ${formTargets.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** A whole page around `body`. */
export function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${title}</title>
        ${STYLE_ELEMENT}
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.value;
}

/** Answers with a page: HTML under {@link pageCsp} (forms may post on to `formTargets`). */
export function sendPage(ctx: Context, status: number, body: string, formTargets: string[] = []): void {
  ctx.status = status;
  ctx.type = 'text/html';
  ctx.set('Content-Security-Policy', pageCsp(formTargets));
  ctx.body = body;
}
