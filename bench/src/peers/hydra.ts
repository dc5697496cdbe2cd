/**
 * Ory Hydra v2.3.0 as a peer (`serve all --dev`, PostgreSQL, opaque tokens). It has no login or consent
 * pages: each token comes from a code flow whose challenges the bench accepts on the admin API.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REDIRECT } from '#test-support/oauth-flow.js';
import { freePort, httpAnswers, startProcess, waitUntil } from '#test-support/processes.js';
import { formLine, jsonLine, type Bench } from '../lib/bench.js';
import { registration } from '../lib/seed.js';
import { startPostgres } from './postgres.js';
import { callJson, codeFlow, introspectionLine, peerLoad, pooled, redirectParam, retried } from './peer.js';
import type { PeerClient, PeerTarget } from './peer.js';

const SCOPE = 'courses:read students:read';

/** A running Hydra: its public and admin origins. */
type Hydra = { pub: string; admin: string };

function createClient(h: Hydra, name: string): Promise<PeerClient> {
  return callJson<PeerClient>(`${h.admin}/admin/clients`, {
    json: {
      client_name: name,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: `offline_access ${SCOPE}`,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'client_secret_post',
    },
  });
}

/** Accepts a login or consent challenge on the admin API; Hydra's `redirect_to` back to itself. */
async function accept(h: Hydra, kind: 'login' | 'consent', challenge: string, body: object) {
  const url = `${h.admin}/admin/oauth2/auth/requests/${kind}/accept?${kind}_challenge=${challenge}`;
  return (await callJson<{ redirect_to: string }>(url, { method: 'PUT', json: body })).redirect_to;
}

/** One code flow for `client` with `scope`: the login and consent challenges accepted on the admin API. */
function hydraFlow(h: Hydra, client: PeerClient, scope: string) {
  const urls = { authorize: `${h.pub}/oauth2/auth`, token: `${h.pub}/oauth2/token` };
  return codeFlow<{ access_token: string; refresh_token?: string }>(
    urls,
    client,
    scope,
    async (browser, toLogin) => {
      const login = redirectParam(toLogin, 'login_challenge');
      if (!login)
        throw new Error(`hydra: no login challenge: ${toLogin.status} ${toLogin.body.slice(0, 200)}`);
      const toConsent = await browser.follow(await accept(h, 'login', login, { subject: 'bench-user' }));
      const consent = redirectParam(toConsent, 'consent_challenge');
      if (!consent) throw new Error(`hydra: no consent challenge: ${toConsent.status} ${toConsent.location}`);
      const granted = { grant_scope: scope.split(' '), remember: false };
      return browser.follow(await accept(h, 'consent', consent, granted));
    },
  );
}

/** Starts Hydra, creates its clients and tokens, and writes its request files. */
export async function startHydra(bench: Bench, bin: string, tokens: number): Promise<PeerTarget> {
  const [pubPort, adminPort] = [await freePort(), await freePort()];
  const h: Hydra = { pub: `http://127.0.0.1:${pubPort}`, admin: `http://127.0.0.1:${adminPort}` };
  const pg = await startPostgres(bench);
  await promisify(execFile)(bin, ['migrate', 'sql', 'up', '-e', '--yes'], {
    env: { ...process.env, DSN: pg.dsn },
  });
  const p = startProcess('hydra', bin, ['serve', 'all', '--dev'], {
    env: {
      ...process.env,
      DSN: pg.dsn,
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
    retried(() => hydraFlow(h, introspector, SCOPE)),
  );
  const clients = await pooled(
    Array.from({ length: 10 }, (_, i) => i),
    4,
    (i) => createClient(h, `bench service ${i}`),
  );
  const refreshFile = async () => {
    const lines = await pooled(clients, 1, async (c) => {
      const t = await retried(() => hydraFlow(h, c, `offline_access ${SCOPE}`));
      if (!t.refresh_token) throw new Error('hydra issued no refresh token');
      const { client_id, client_secret } = c;
      const form = { grant_type: 'refresh_token', refresh_token: t.refresh_token, client_id, client_secret };
      return formLine('/oauth2/token', form);
    });
    return bench.requests('hydra-refresh', lines);
  };
  const introspect = (t: { access_token: string }) =>
    introspectionLine('/admin/oauth2/introspect', t.access_token);
  return {
    name: 'hydra',
    label: 'Ory Hydra v2.3.0 (serve all --dev, PostgreSQL 15, opaque tokens)',
    stop: async () => {
      await p.stop();
      process.kill(pg.pid, 'SIGTERM');
    },
    processes: { hydra: p.pid, postgres: pg.ticks },
    introspection: peerLoad(bench, h.admin, 'hydra-introspection', pool.map(introspect)),
    refresh: { url: h.pub, requestsFile: await refreshFile(), renew: refreshFile },
    registration: peerLoad(bench, h.pub, 'hydra-register', [
      jsonLine('/oauth2/register', registration('bench agent')),
    ]),
    notes: {
      introspection: 'hydra: its admin endpoint, which takes no client authentication',
      refresh:
        'hydra: rotates refresh tokens; each presented again within its 5-minute grace period, fresh ones before each run',
    },
  };
}
