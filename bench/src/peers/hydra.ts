/**
 * Ory Hydra v2.3.0 as a peer: `hydra serve all --dev` on 127.0.0.1 with a dedicated PostgreSQL
 * (postgres.ts, its CPU counted with Hydra's), opaque access tokens, its default client-secret hasher
 * (PBKDF2, 25,000 iterations) and log level (info). Hydra has no login or consent pages, so each token
 * comes from a real code flow driven as the application would: the authorization request on its
 * public port, the login and consent challenges accepted on its admin API, the code exchanged with
 * PKCE by a `client_secret_post` client. Its introspection is the admin endpoint (no client
 * authentication). It rotates refresh tokens and revokes the grant's access tokens on rotation, so
 * every pool token has its own grant, and the 10 refresh tokens, presented again within its 5-minute
 * grace period, are minted afresh before each run.
 */
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Bench } from '../lib/bench.js';
import { formLine, jsonLine } from '../lib/bench.js';
import { registration } from '../lib/seed.js';
import { FormBrowser } from '#test-support/form-browser.js';
import { pkce, REDIRECT } from '#test-support/oauth-flow.js';
import { freePort, httpAnswers, startProcess, waitUntil } from '#test-support/processes.js';
import { startPostgres } from './postgres.js';
import {
  authorizeQuery,
  callJson,
  exchangeCode,
  pooled,
  retried,
  type PeerClient,
  type PeerTarget,
} from './peer.js';

const SCOPE = 'courses:read students:read';
const SUBJECT = 'bench-user';

type HydraClient = PeerClient;

/** A running Hydra: its public and admin origins. */
interface Hydra {
  pub: string;
  admin: string;
}

async function createClient(h: Hydra, name: string): Promise<HydraClient> {
  const { body } = await callJson<HydraClient>(`${h.admin}/admin/clients`, {
    json: {
      client_name: name,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: `offline_access ${SCOPE}`,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_post',
    },
  });
  return body;
}

/** Accepts a login or consent challenge on the admin API; Hydra's `redirect_to` back to itself. */
async function accept(h: Hydra, kind: 'login' | 'consent', challenge: string, body: unknown) {
  const url = `${h.admin}/admin/oauth2/auth/requests/${kind}/accept?${kind}_challenge=${challenge}`;
  return (await callJson<{ redirect_to: string }>(url, { method: 'PUT', json: body })).body.redirect_to;
}

/** One authorization-code flow for `client` with `scope`, its tokens from the code exchange. */
async function codeFlow(
  h: Hydra,
  client: HydraClient,
  scope: string,
): Promise<{ access_token: string; refresh_token?: string }> {
  const browser = new FormBrowser(h.pub);
  const { verifier, challenge } = pkce();
  const q = authorizeQuery(client, challenge, scope);
  const toLogin = await browser.follow(`${h.pub}/oauth2/auth?${q.toString()}`);
  const login = new URL(toLogin.location ?? 'x:').searchParams.get('login_challenge');
  if (!login) throw new Error(`hydra: no login challenge: ${toLogin.status} ${toLogin.body.slice(0, 200)}`);
  const toConsent = await browser.follow(await accept(h, 'login', login, { subject: SUBJECT }));
  const consent = new URL(toConsent.location ?? 'x:').searchParams.get('consent_challenge');
  if (!consent) throw new Error(`hydra: no consent challenge: ${toConsent.status} ${toConsent.location}`);
  const back = await browser.follow(
    await accept(h, 'consent', consent, { grant_scope: scope.split(' '), remember: false }),
  );
  const code = new URL(back.location ?? 'x:').searchParams.get('code');
  if (!code) throw new Error(`hydra: no code: ${back.status} ${back.location}`);
  return exchangeCode(`${h.pub}/oauth2/token`, client, code, verifier);
}

/** Starts Hydra, creates its clients and tokens, and writes its request files. */
export async function startHydra(bench: Bench, bin: string, tokens: number): Promise<PeerTarget> {
  const [pubPort, adminPort] = [await freePort(), await freePort()];
  const h: Hydra = { pub: `http://127.0.0.1:${pubPort}`, admin: `http://127.0.0.1:${adminPort}` };
  const pg = await startPostgres(bench);
  const dsn = pg.dsn;
  await promisify(execFile)(bin, ['migrate', 'sql', 'up', '-e', '--yes'], {
    env: { ...process.env, DSN: dsn },
  });
  const p = startProcess('hydra', bin, ['serve', 'all', '--dev'], {
    env: {
      ...process.env,
      DSN: dsn,
      SERVE_PUBLIC_HOST: '127.0.0.1',
      SERVE_PUBLIC_PORT: String(pubPort),
      SERVE_ADMIN_HOST: '127.0.0.1',
      SERVE_ADMIN_PORT: String(adminPort),
      URLS_SELF_ISSUER: h.pub,
      // The application's pages: never visited (the bench accepts the challenges on the admin API).
      URLS_LOGIN: 'http://127.0.0.1:9/login',
      URLS_CONSENT: 'http://127.0.0.1:9/consent',
      SECRETS_SYSTEM: randomBytes(24).toString('hex'),
      OAUTH2_GRANT_REFRESH_TOKEN_ROTATION_GRACE_PERIOD: '5m',
      OIDC_DYNAMIC_CLIENT_REGISTRATION_ENABLED: 'true',
      SQA_OPT_OUT: 'true',
    },
    log: join(bench.dir, 'logs', 'hydra.log'),
  });
  await waitUntil(p, () => httpAnswers(`${h.admin}/health/ready`, 200), 'health', 60_000);

  bench.log(`hydra: ${tokens} code flows for the introspection pool, 10 for the refresh pool`);
  const introspector = await createClient(h, 'bench introspection pool');
  const pool = await pooled(Array.from({ length: tokens }), 4, () =>
    retried(() => codeFlow(h, introspector, SCOPE)),
  );
  const refreshClients = await pooled(
    Array.from({ length: 10 }, (_, i) => i),
    4,
    (i) => createClient(h, `bench service ${i}`),
  );
  const refreshLines = async () =>
    pooled(refreshClients, 1, async (c) => {
      const t = await retried(() => codeFlow(h, c, `offline_access ${SCOPE}`));
      if (!t.refresh_token) throw new Error('hydra issued no refresh token');
      return formLine('/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: t.refresh_token,
        client_id: c.client_id,
        client_secret: c.client_secret,
      });
    });
  const refreshFile = bench.requests('hydra-refresh', await refreshLines());
  return {
    name: 'hydra',
    label: 'Ory Hydra v2.3.0 (serve all --dev, PostgreSQL 15, opaque tokens)',
    stop: async () => {
      await p.stop();
      process.kill(pg.pid, 'SIGTERM');
    },
    processes: { hydra: p.pid },
    tree: { name: 'postgres', ticks: pg.ticks },
    introspection: {
      url: h.admin,
      requestsFile: bench.requests(
        'hydra-introspection',
        pool.map((t) =>
          formLine('/admin/oauth2/introspect', { token: t.access_token, token_type_hint: 'access_token' }, [
            'Accept: application/json',
          ]),
        ),
      ),
    },
    refresh: {
      url: h.pub,
      requestsFile: refreshFile,
      renew: async () => bench.requests('hydra-refresh', await refreshLines()),
    },
    registration: {
      url: h.pub,
      requestsFile: bench.requests('hydra-register', [
        jsonLine('/oauth2/register', registration('bench agent', false)),
      ]),
    },
    notes: {
      introspection: 'hydra: its admin endpoint, which takes no client authentication',
      refresh:
        'hydra: rotates refresh tokens; each presented again within its 5-minute grace period, fresh ones before each run',
    },
  };
}
