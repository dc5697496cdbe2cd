/**
 * A minimal browser for the login and consent pages over plain HTTP: a cookie jar (tough-cookie, so
 * each cookie goes only where its Path, expiry and host allow, as in a real browser), manual redirects
 * and form submission, the way a no-JavaScript browser uses them. The real-browser suite (Chromium)
 * lives in test-e2e/; this one lets integration tests and the bench drive the real pages quickly.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CookieJar } from 'tough-cookie';
import { Agent, fetch as undiciFetch } from 'undici';

/** The first piece of `html` cut at each `separator` (what comes before the first left out) that contains `text`. */
export function pieceContaining(html: string, separator: string, text: string): string | undefined {
  return html
    .split(separator)
    .slice(1)
    .find((piece) => piece.includes(text));
}

/** One HTTP response as the browser saw it. */
export interface Page {
  status: number;
  url: string;
  headers: Headers;
  body: string;
  /** The `Location` header, resolved against `url`, for redirects. */
  location?: string;
}

/** Reads a hidden or text input's value out of a page. */
export function inputValue(html: string, name: string): string | undefined {
  const m = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  return m?.[1]
    ?.replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** Reads a form's action out of a page: the `index`-th form, or the one whose action ends with `suffix`. */
export function formAction(html: string, suffix: string): string | undefined {
  const actions = [...html.matchAll(/<form[^>]*action="([^"]*)"/g)].map((m) => m[1]!);
  return actions.find((a) => a.endsWith(suffix));
}

/**
 * What a browser sends for the form whose action ends with `suffix`, before anything is changed:
 * its hidden inputs and its ticked checkboxes and radio buttons, in order.
 */
export function formFields(html: string, suffix: string): [string, string][] {
  const form = [...html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].find((m) =>
    m[1]!.endsWith(suffix),
  );
  if (!form) return [];
  const fields: [string, string][] = [];
  for (const [input] of form[2]!.matchAll(/<input[^>]*>/g)) {
    const type = /type="([^"]*)"/.exec(input)?.[1] ?? 'text';
    const name = /name="([^"]*)"/.exec(input)?.[1];
    const value = /value="([^"]*)"/.exec(input)?.[1] ?? '';
    const sent = type === 'hidden' || ((type === 'checkbox' || type === 'radio') && / checked\b/.test(input));
    if (name && sent) fields.push([name, value.replace(/&amp;/g, '&').replace(/&quot;/g, '"')]);
  }
  return fields;
}

/** The values of the checkboxes named `name` on a page, ticked or not. */
export function checkboxValues(html: string, name: string): string[] {
  return [...html.matchAll(/<input[^>]*type="checkbox"[^>]*>/g)]
    .filter(([input]) => input.includes(`name="${name}"`))
    .map(([input]) => /value="([^"]*)"/.exec(input)![1]!);
}

/** A form's fields: one value per name, or several (checkboxes). */
export type FormFields = Record<string, string | string[]>;

function formBody(fields: FormFields | [string, string][]): string {
  const entries = Array.isArray(fields)
    ? fields
    : Object.entries(fields).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]));
  return new URLSearchParams(entries as [string, string][]).toString();
}

/** The `href` of the first link whose text contains `text`, resolved as the page would not (as written). */
export function linkHref(html: string, text: string): string | undefined {
  for (const m of html.matchAll(/<a[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)) {
    if (m[2]!.includes(text)) return m[1]!.replace(/&amp;/g, '&');
  }
  return undefined;
}

/** A cookie-keeping client that never follows redirects by itself; it sends cookies to `origin` only. */
export class FormBrowser {
  readonly jar = new CookieJar();
  private readonly fetch: typeof globalThis.fetch;

  /**
   * `localAddress`: the loopback address to send from (any of 127.0.0.0/8), so a test can be several
   * clients at several addresses; by default the system's choice.
   */
  constructor(
    readonly origin: string,
    { localAddress }: { localAddress?: string } = {},
  ) {
    if (!localAddress) {
      this.fetch = globalThis.fetch;
      return;
    }
    const dispatcher = new Agent({ localAddress });
    this.fetch = ((input: string, init: RequestInit) =>
      undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof globalThis.fetch;
  }

  /** The Cookie header this browser sends with a request to `url` (empty for another origin). */
  cookieHeader(url: string): Promise<string> {
    const target = new URL(url, this.origin);
    return target.origin === this.origin ? this.jar.getCookieString(target.href) : Promise.resolve('');
  }

  /** One request; redirects are returned, not followed. */
  async request(
    url: string,
    init: { method?: string; form?: FormFields | [string, string][]; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const target = new URL(url, this.origin).href;
    const headers: Record<string, string> = { accept: 'text/html', ...init.headers };
    const cookie = await this.cookieHeader(target);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = formBody(init.form);
    }
    const res = await this.fetch(target, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const line of res.headers.getSetCookie()) await this.jar.setCookie(line, target);
    const location = res.headers.get('location');
    return {
      status: res.status,
      url: target,
      headers: res.headers,
      body: await res.text(),
      location: location ? new URL(location, target).href : undefined,
    };
  }

  /** Follows redirects within this origin; stops at a page, or at a redirect leaving the origin. */
  async follow(url: string, init: Parameters<FormBrowser['request']>[1] = {}): Promise<Page> {
    let page = await this.request(url, init);
    for (let hops = 0; page.location && new URL(page.location).origin === this.origin; hops++) {
      if (hops > 10) throw new Error('too many redirects');
      page = await this.request(page.location);
    }
    return page;
  }

  /**
   * Submits the form of `page` whose action ends with `suffix` as a browser would (its hidden fields,
   * its ticked boxes), with `fields` replacing the fields of the same names.
   */
  async submit(page: Page, suffix: string, fields: FormFields = {}): Promise<Page> {
    const action = formAction(page.body, suffix);
    if (!action) throw new Error(`no form ending in ${suffix} on ${page.url} (status ${page.status})`);
    const csrf = inputValue(page.body, 'csrf') ?? '';
    const sent: [string, string][] = formFields(page.body, suffix).filter(([name]) => !(name in fields));
    if (!sent.some(([name]) => name === 'csrf') && !('csrf' in fields)) sent.push(['csrf', csrf]);
    for (const [name, value] of Object.entries(fields)) {
      for (const v of Array.isArray(value) ? value : [value]) sent.push([name, v]);
    }
    return this.follow(action, { form: sent });
  }
}

/**
 * A fresh browser sending from `from` (any of 127.0.0.0/8) on the page where a new code flow of the
 * public client `clientId` (scope `openid`, a PKCE challenge nobody redeems) begins: the sign-in page.
 */
export async function openSignInFrom(
  issuer: string,
  client: { clientId: string; redirectUri: string },
  from: string,
): Promise<{ browser: FormBrowser; page: Page }> {
  const browser = new FormBrowser(issuer, { localAddress: from });
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid',
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
  });
  return { browser, page: await browser.follow(`${issuer}/oauth/authorize?${q.toString()}`) };
}

/**
 * Signs in and answers the consent page for an authorization URL; returns where the browser was
 * finally sent (the client's redirect URI with `code`/`error`, `state` and `iss`).
 */
export async function authorizeInBrowser(
  browser: FormBrowser,
  authorizationUrl: string,
  opts: {
    email: string;
    password: string;
    decision?: 'allow' | 'deny';
    /** The scopes to leave ticked on Allow; by default every one offered (the admin allows all asked). */
    approve?: string[] | 'as shown';
  },
): Promise<URL> {
  let page = await browser.follow(authorizationUrl);
  if (formAction(page.body, '/login')) {
    page = await browser.submit(page, '/login', { email: opts.email, password: opts.password });
  }
  if (formAction(page.body, '/confirm')) {
    if (opts.decision === 'deny') page = await browser.submit(page, '/abort');
    else {
      const approve = opts.approve ?? checkboxValues(page.body, 'scope');
      page = await browser.submit(page, '/confirm', approve === 'as shown' ? {} : { scope: approve });
    }
  }
  if (!page.location)
    throw new Error(`expected a redirect to the client, got ${page.status}: ${page.body.slice(0, 300)}`);
  return new URL(page.location);
}

/**
 * Opens the account page at `path` (e.g. `/oauth/account/clients`), signing in as `account` first
 * when the login page asks (signing in lands on Connected apps, so `path` is asked for again);
 * returns the page it ends on, whatever its status.
 */
export async function openAccountPage(
  browser: FormBrowser,
  path: string,
  account: { email: string; password: string },
): Promise<Page> {
  const page = await browser.follow(path);
  if (!formAction(page.body, '/login')) return page;
  const after = await browser.submit(page, '/login', { email: account.email, password: account.password });
  // Refused (wrong password, throttled): that answer. Signed in: go on to `path`.
  return formAction(after.body, '/login') ? after : browser.follow(path);
}

/**
 * The statuses of two forged posts of `form` to `action` in `browser`: one without the CSRF token,
 * one with the page's token `csrf` but from another origin. A protected form answers 403 to both.
 */
export async function forgedPostStatuses(
  browser: FormBrowser,
  action: string,
  form: FormFields,
  csrf: string,
): Promise<[number, number]> {
  const noToken = await browser.request(action, { form });
  const elsewhere = await browser.request(action, {
    form: { ...form, csrf },
    headers: { origin: 'http://evil.example' },
  });
  return [noToken.status, elsewhere.status];
}
