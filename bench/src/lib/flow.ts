/**
 * The real OAuth flows over HTTP, to set up what the measures load: dynamic registration, sign-in
 * through the login and consent pages (a cookie jar, manual redirects, form posts: a browser without
 * JavaScript), the code exchange with PKCE, and login interactions prepared up to the form submission.
 * None of this is measured; it only creates the clients, grants and tokens the measures then use.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A registered client. */
export interface Client {
  client_id: string;
  client_secret?: string;
  redirect_uri: string;
}

/** One HTTP response as the browser saw it. */
export interface Page {
  status: number;
  body: string;
  location?: string;
}

/** The redirect URI every bench client registers (loopback; nothing listens there). */
export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

/** A cookie-keeping client that never follows redirects by itself. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; json?: unknown } = {},
  ): Promise<Page> {
    const target = new URL(url, this.origin);
    const headers: Record<string, string> = { accept: 'text/html' };
    if (this.cookies.size && target.origin === this.origin) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.origin = this.origin;
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      headers.accept = 'application/json';
      body = JSON.stringify(init.json);
    }
    const res = await fetch(target, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = res.headers.get('location');
    return {
      status: res.status,
      body: await res.text(),
      location: location ? new URL(location, target).href : undefined,
    };
  }

  /** Follows redirects within this origin; stops at a page or at a redirect leaving it. */
  async follow(url: string, init: Parameters<Browser['request']>[1] = {}): Promise<Page> {
    let page = await this.request(url, init);
    for (let hops = 0; page.location && new URL(page.location).origin === this.origin; hops++) {
      if (hops > 10) throw new Error('too many redirects');
      page = await this.request(page.location);
    }
    return page;
  }
}

/** The value of a form field in a page. */
export function inputValue(html: string, name: string): string | undefined {
  return new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1];
}

function formAction(html: string, suffix: string): string | undefined {
  return [...html.matchAll(/<form[^>]*action="([^"]*)"/g)].map((m) => m[1]!).find((a) => a.endsWith(suffix));
}

/** Registers a client at /api/oauth/register; `confidential` asks for client_secret_post. */
export async function register(origin: string, name: string, confidential: boolean): Promise<Client> {
  const res = await fetch(`${origin}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(registration(name, confidential)),
  });
  const json = (await res.json()) as { client_id?: string; client_secret?: string };
  if (res.status !== 201 || !json.client_id) {
    throw new Error(`registration failed: ${res.status} ${JSON.stringify(json)}`);
  }
  return { client_id: json.client_id, client_secret: json.client_secret, redirect_uri: REDIRECT_URI };
}

/** The registration request a native app or CLI sends. */
export function registration(name: string, confidential: boolean): Record<string, unknown> {
  return {
    client_name: name,
    application_type: 'native',
    redirect_uris: [REDIRECT_URI],
    token_endpoint_auth_method: confidential ? 'client_secret_post' : 'none',
  };
}

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The authorization request URL (code, PKCE S256). */
export function authorizeUrl(origin: string, client: Client, scope: string, challenge: string): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    scope,
    state: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `${origin}/oauth/authorize?${q}`;
}

/**
 * Gets an authorization code the way a browser does: authorize, then sign in and consent if the
 * pages ask (a browser that already has a session and a grant for the client goes straight through).
 */
export async function authorize(
  browser: Browser,
  client: Client,
  scope: string,
  account: { email: string; password: string },
): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  let page = await browser.follow(authorizeUrl(browser.origin, client, scope, challenge));
  for (let step = 0; step < 3 && !page.location; step++) {
    const login = formAction(page.body, '/login');
    const confirm = formAction(page.body, '/confirm');
    const csrf = inputValue(page.body, 'csrf') ?? '';
    if (login)
      page = await browser.follow(login, {
        form: { csrf, email: account.email, password: account.password },
      });
    else if (confirm) page = await browser.follow(confirm, { form: { csrf } });
    else break;
  }
  const code = page.location ? new URL(page.location).searchParams.get('code') : null;
  if (!code)
    throw new Error(`authorization failed: ${page.status} ${page.location ?? page.body.slice(0, 300)}`);
  return { code, verifier };
}

/** Token endpoint answer. */
export interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
}

/** POSTs a form to the token endpoint as `client` (client_secret_post when it has a secret). */
export async function tokenRequest(
  origin: string,
  client: Client,
  params: Record<string, string>,
): Promise<Tokens> {
  const form = new URLSearchParams({ ...params, client_id: client.client_id });
  if (client.client_secret) form.set('client_secret', client.client_secret);
  const res = await fetch(`${origin}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const json = (await res.json()) as Tokens & { error?: string };
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Authorization code → tokens. */
export function exchange(origin: string, client: Client, code: string, verifier: string): Promise<Tokens> {
  return tokenRequest(origin, client, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirect_uri,
    code_verifier: verifier,
  });
}

/** Signs in (first time) or goes straight through (later), then exchanges the code. */
export async function tokensFor(
  browser: Browser,
  client: Client,
  scope: string,
  account: { email: string; password: string },
): Promise<Tokens> {
  const { code, verifier } = await authorize(browser, client, scope, account);
  return exchange(browser.origin, client, code, verifier);
}

/** A login form ready to submit: what a browser holds right before the user presses "Sign in". */
export interface PreparedLogin {
  path: string;
  cookie: string;
  csrf: string;
}

/** Starts a fresh authorization (a new browser, no session) and loads its login page. */
export async function prepareLogin(origin: string, client: Client, scope: string): Promise<PreparedLogin> {
  const browser = new Browser(origin);
  const page = await browser.follow(authorizeUrl(origin, client, scope, pkce().challenge));
  const path = formAction(page.body, '/login');
  const csrf = inputValue(page.body, 'csrf');
  if (!path || !csrf) throw new Error(`no login form: ${page.status} ${page.body.slice(0, 200)}`);
  const cookie = [...browser.cookies]
    .filter(([k]) => k.startsWith('_interaction') && !k.startsWith('_interaction_resume'))
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
  return { path, cookie, csrf };
}
