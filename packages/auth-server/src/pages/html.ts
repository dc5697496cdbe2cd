/**
 * A tiny HTML builder: a tagged template that escapes every interpolated value (with `escape-html`)
 * unless it is already {@link SafeHtml}. Pages are plain server-rendered HTML that work without
 * JavaScript. Their CSP forbids every script, except on the pages that offer passkeys: those load
 * our own scripts from this origin with a nonce made for that one answer ({@link scriptNonce}).
 */
import { createHash, randomBytes } from 'node:crypto';
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
*,*::before,*::after{box-sizing:border-box}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f3f4f6;color:#111827}
main{background:#fff;max-width:28rem;width:calc(100% - 1rem);margin:.5rem;padding:clamp(1rem,4vw,2rem);border-radius:12px;box-shadow:0 1px 3px #0002;overflow-wrap:anywhere}
main.wide{max-width:60rem}
h1{font-size:1.35rem;margin:0 0 1rem}
h2{font-size:1.05rem;margin:1.25rem 0 .5rem}
p{line-height:1.5}
a{color:#1d4ed8}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=email],input[type=password],input[type=text],select{width:100%;padding:.6rem;border:1px solid #6b7280;border-radius:6px;font-size:1rem}
button,a.button{display:inline-block;margin-top:1.25rem;padding:.65rem 1.2rem;border:0;border-radius:6px;font-size:1rem;cursor:pointer;background:#1d4ed8;color:#fff;text-decoration:none}
button.secondary{background:#e5e7eb;color:#111827}
button.danger{background:#b91c1c;color:#fff;margin-top:.5rem}
button.link{background:none;color:#1d4ed8;padding:0;margin:0;text-decoration:underline;font-size:inherit}
.actions{display:flex;gap:.75rem;flex-wrap:wrap}
.actions form{margin:0}
.actions.stacked{flex-direction:column;align-items:flex-start;gap:.4rem}
form+details,form+p.note{margin-top:1.5rem}
.error{background:#fee2e2;color:#991b1b;padding:.75rem;border-radius:6px}
.error>p:first-child{margin-top:0}.error>ul:last-child{margin-bottom:0}
.ok{background:#dcfce7;color:#14532d;padding:.75rem;border-radius:6px}
.note{font-size:.9rem;color:#4b5563}
.app{border-left:4px solid #d97706;padding:.25rem 0 .25rem .75rem;margin:.5rem 0}
.app-name{display:block;font-size:1rem}
.kind{display:block;font-size:1rem;font-weight:600;color:#92400e}
.kind-integration,.kind-service,.kind-console,.kind-metadata-document{color:#1e3a8a}
.group{margin:.75rem 0 .25rem;font-weight:600}
.flag{font-size:.85rem;background:#fee2e2;color:#991b1b;padding:.1rem .4rem;border-radius:4px}
ul.scopes{padding-left:1.2rem;margin:.25rem 0}
ul.scopes li{margin:.3rem 0}
ul.writes li{color:#991b1b}
table.scope-use{margin:.5rem 0}
table.scope-use tr.writes td:first-child code{color:#991b1b}
table tr.category th{text-align:left;padding-top:.6rem}
ul.scopes .category{margin-left:.3rem}
fieldset.choices{border:0;padding:0;margin:1.25rem 0 0}
fieldset.choices legend{font-size:1.05rem;font-weight:700;padding:0;margin-bottom:.25rem}
ul.choices{list-style:none;padding-left:0}
ul.choices li{display:flex;gap:.5rem;align-items:flex-start}
ul.choices input{margin:.3rem 0 0;width:1.1rem;height:1.1rem;flex:none}
ul.choices label{display:inline;margin:0;font-weight:400}
code{background:#f3f4f6;padding:.05rem .3rem;border-radius:4px}
code.secret{display:inline-block;font-size:1.15rem;padding:.3rem .6rem;user-select:all}
.card>h2:first-child{margin-top:.25rem}
td .actions button{margin:0}
td.nowrap{white-space:nowrap}
nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin:0 0 1rem;font-size:.95rem}
nav form{margin:0}
.card{border:1px solid #d1d5db;border-radius:8px;padding:.75rem 1rem;margin:.75rem 0}
dl.facts{display:grid;grid-template-columns:minmax(6rem,auto) 1fr;gap:.25rem .75rem;margin:.5rem 0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e5e7eb;vertical-align:top;overflow-wrap:break-word}
td.ids{overflow-wrap:anywhere}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
.filters label{margin:0}
.filters button{margin:0}
.filters label.check{display:flex;align-items:center;gap:.4rem;min-height:2.6rem;font-weight:400}
.filters label.check input{width:1.1rem;height:1.1rem;margin:0}
.kind.listed{font-weight:400;font-size:.9rem}
@media (max-width:40rem){.filters>div{flex:1 1 100%}table,thead,tbody,tr,th,td{display:block}thead{display:none}tr{border:1px solid #d1d5db;border-radius:8px;margin:.5rem 0;padding:.25rem}td{border:0}td::before{content:attr(data-label) ": ";font-weight:600}}
@media (prefers-color-scheme:dark){body{background:#111827;color:#f9fafb}main{background:#1f2937}a,button.link{color:#93c5fd}
input,select{background:#111827;color:#f9fafb}code{background:#374151}.note{color:#d1d5db}.kind{color:#fcd34d}
.kind-integration,.kind-service,.kind-console,.kind-metadata-document{color:#bfdbfe}ul.writes li{color:#fca5a5}}
`;

/** The CSP hash of the one stylesheet every page inlines. */
export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

// Built by concatenation, not inside an html`` template, so that no formatter can add whitespace
// to the element's content and break the hash above.
const STYLE_ELEMENT = new SafeHtml('<style>' + STYLE + '</style>');

/**
 * The Content-Security-Policy of a page: no scripts (or only those carrying `scriptNonce`), only our
 * stylesheet, no framing, forms posting to this origin and (after the redirects that follow a
 * submission) to `formTargets`.
 */
export function pageCsp(formTargets: readonly string[] = [], scriptNonce?: string): string {
  return [
    "default-src 'none'",
    ...(scriptNonce ? [`script-src 'nonce-${scriptNonce}'`] : []),
    `style-src ${STYLE_HASH}`,
    "img-src 'self' data:",
    `form-action 'self' ${formTargets.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** A whole page around `body`; `wide` for the pages with lists and tables. */
export function layout(title: string, body: SafeHtml, { wide = false } = {}): string {
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
        <main class="${wide ? 'wide' : ''}">${body}</main>
      </body>
    </html> `.value;
}

/** A nonce for the scripts of one answer. */
export function scriptNonce(): string {
  return randomBytes(18).toString('base64');
}

/** The `<script>` elements loading `urls` in order, after the page is parsed, with the answer's nonce. */
export function scriptTags(nonce: string, urls: readonly string[]): SafeHtml {
  return html`${urls.map((src) => html`<script defer nonce="${nonce}" src="${src}"></script>`)}`;
}

/**
 * Answers with a page: HTML under {@link pageCsp} (forms may post on to `formTargets`; scripts with
 * `scriptNonce` may run).
 */
export function sendPage(
  ctx: Context,
  status: number,
  body: string,
  formTargets: string[] = [],
  scriptNonce?: string,
): void {
  ctx.status = status;
  ctx.type = 'text/html';
  ctx.set('Content-Security-Policy', pageCsp(formTargets, scriptNonce));
  ctx.body = body;
}
