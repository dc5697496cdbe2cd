/**
 * What P1–P3 know of a server (ours or a peer): where to send each load, its request file, and which
 * processes' CPU to count; and the HTTP helpers the peers' set-up shares.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { FormBrowser, type Page } from '#test-support/form-browser.js';
import { pkce, REDIRECT } from '#test-support/oauth-flow.js';
import { formLine, type Bench } from '../lib/bench.js';
import type { ProcessSet } from '../lib/proc.js';

/** One load at one server: origin and request file (see lua/bench.lua). */
export interface PeerLoad {
  url: string;
  requestsFile: string;
  /** Writes fresh requests before a run (time-limited tokens); the file's path. */
  renew?: () => Promise<string>;
}

export type Kind = 'introspection' | 'refresh' | 'registration';

/** A server of the side-by-side measures: ours or a peer, with a load per measure. */
export interface PeerTarget extends Record<Kind, PeerLoad> {
  /** Short name in the lines: "ours", "hydra", "keycloak". */
  name: string;
  /** What it is, e.g. "Ory Hydra v2.3.0 (serve all --dev, PostgreSQL 15)". */
  label: string;
  /** The processes whose CPU is counted: the server and its store. */
  processes: ProcessSet;
  /** Processes on its path measured but not counted (our MongoDB-protocol server). */
  shown?: ProcessSet;
  /** How it was set up where that differs from ours, per load. */
  notes: Partial<Record<Kind, string>>;
  /** Stops its processes (peers only; ours runs on for the other measures). */
  stop?: () => Promise<void>;
}

/** A load of `lines` (written to the request file `name`) at `url`. */
export function peerLoad(bench: Bench, url: string, name: string, lines: string[]): PeerLoad {
  return { url, requestsFile: bench.requests(name, lines) };
}

/** An introspection of `token` at `path`, with `client`'s credentials when the endpoint takes them. */
export function introspectionLine(path: string, token: string, client: Partial<PeerClient> = {}): string {
  return formLine(path, { token, token_type_hint: 'access_token', ...client }, ['Accept: application/json']);
}

/** A confidential client of a peer (`client_secret_post`). */
export interface PeerClient {
  client_id: string;
  client_secret: string;
}

/** Where scripts/peers put the peers (.data/peers/peers.env); absent values mean "not built". */
export function peersEnv(root: string): {
  HYDRA_BIN?: string;
  KEYCLOAK_HOME?: string;
  KEYCLOAK_JAVA_HOME?: string;
} {
  const file = join(root, '.data', 'peers', 'peers.env');
  return existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
}

/** JSON over HTTP for the peers' admin APIs: throws on an unexpected status. */
export async function callJson<T = Record<string, unknown>>(
  url: string,
  init: { method?: string; json?: unknown; form?: Record<string, string>; token?: string } = {},
  expect: number[] = [200, 201],
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const body =
    init.json !== undefined ? JSON.stringify(init.json) : init.form && new URLSearchParams(init.form);
  const method = init.method ?? (body ? 'POST' : 'GET');
  const res = await fetch(url, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  if (!expect.includes(res.status)) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/** Runs `fn` over `items` with at most `width` at a time; results in order. */
export async function pooled<I, O>(items: I[], width: number, fn: (item: I) => Promise<O>): Promise<O[]> {
  const out: O[] = new Array<O>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

/** `fn`, tried up to 3 times (set-up requests that a busy peer may refuse once: SQLite's lock). */
export async function retried<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= 3) throw err;
    }
  }
}

/** A redirect's query parameter `name` (absent without a redirect). */
export const redirectParam = (page: Page, name: string) =>
  new URL(page.location ?? 'x:').searchParams.get(name);

/**
 * A code flow of `client` at a peer: a fresh browser sends the authorization request (code, PKCE S256,
 * the bench's redirect URI), `signIn` takes it to the redirect with the code, and the code is exchanged
 * at `tokenUrl` with `client_secret_post`. The token answer.
 */
export async function codeFlow<T>(
  urls: { authorize: string; token: string },
  client: PeerClient,
  scope: string | undefined,
  signIn: (browser: FormBrowser, page: Page) => Promise<Page>,
): Promise<T> {
  const browser = new FormBrowser(new URL(urls.authorize).origin);
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    ...(scope && { scope }),
    state: randomBytes(12).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const back = await signIn(browser, await browser.follow(`${urls.authorize}?${query.toString()}`));
  const code = redirectParam(back, 'code');
  if (!code) throw new Error(`no code: ${back.status} ${back.location ?? back.body.slice(0, 200)}`);
  const { client_id, client_secret } = client;
  const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
  return callJson<T>(urls.token, { form: { ...form, client_id, client_secret } });
}
