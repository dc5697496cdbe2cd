/**
 * Keycloak 26 as a peer (`start-dev --db=dev-mem`: the JVM is the server and its store), set up through
 * its admin REST API; tokens from code flows through its own login page.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REDIRECT } from '#test-support/oauth-flow.js';
import { freePort, httpAnswers, startProcess, waitUntil } from '#test-support/processes.js';
import { formLine, jsonLine, type Bench } from '../lib/bench.js';
import { childPids } from '../lib/proc.js';
import { registration } from '../lib/seed.js';
import { callJson, codeFlow, introspectionLine, peerLoad, pooled } from './peer.js';
import type { PeerClient } from './peer.js';

const REALM = 'bench';
const USER = { username: 'bench', password: randomBytes(12).toString('base64url') };
const TOKEN_PATH = `/realms/${REALM}/protocol/openid-connect/token`;

/** The JVM under kc.sh (which starts java as its child, or execs it after a re-augmentation). */
function javaPid(pid: number): number | undefined {
  if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'java') return pid;
  return childPids(pid).map(javaPid).find(Boolean);
}

/** Creates the realm, its user and its anonymous-registration policy changes. */
async function setUpRealm(origin: string, token: string): Promise<void> {
  const admin = `${origin}/admin/realms`;
  const realm = { realm: REALM, enabled: true, accessTokenLifespan: 3600, ssoSessionIdleTimeout: 7200 };
  await callJson(admin, { token, json: realm });
  await callJson(`${admin}/${REALM}/users`, {
    token,
    json: {
      username: USER.username,
      email: 'bench@bench.test',
      firstName: 'Bench',
      lastName: 'User',
      enabled: true,
      emailVerified: true,
      credentials: [{ type: 'password', value: USER.password, temporary: false }],
    },
  });
  const components = `${admin}/${REALM}/components`;
  const policyType = 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy';
  type Policy = { id: string; providerId: string; subType: string; config: object };
  const policies = await callJson<Policy[]>(`${components}?type=${policyType}`, { token });
  const changes: Record<string, object> = { 'trusted-hosts': ['127.0.0.1'], 'max-clients': ['10000000'] };
  for (const p of policies.filter((x) => x.subType === 'anonymous' && changes[x.providerId])) {
    const config = { ...p.config, [p.providerId]: changes[p.providerId] };
    await callJson(`${components}/${p.id}`, { method: 'PUT', token, json: { ...p, config } }, [204]);
  }
}

/** A confidential client of the realm with a fresh secret. */
async function createClient(origin: string, token: string, clientId: string): Promise<PeerClient> {
  const secret = randomBytes(24).toString('base64url');
  await callJson(`${origin}/admin/realms/${REALM}/clients`, {
    token,
    json: {
      clientId,
      publicClient: false,
      clientAuthenticatorType: 'client-secret',
      secret,
      redirectUris: [REDIRECT],
      standardFlowEnabled: true,
      directAccessGrantsEnabled: false,
    },
  });
  return { client_id: clientId, client_secret: secret };
}

/** A code flow through Keycloak's login page (a fresh browser, the user's password). */
function keycloakFlow(origin: string, client: PeerClient) {
  const urls = {
    authorize: `${origin}/realms/${REALM}/protocol/openid-connect/auth`,
    token: `${origin}${TOKEN_PATH}`,
  };
  return codeFlow<{ access_token: string; refresh_token: string }>(
    urls,
    client,
    undefined,
    async (browser, page) => {
      const action = /<form[^>]*id="kc-form-login"[^>]*action="([^"]+)"/.exec(page.body)?.[1];
      if (!action) throw new Error(`keycloak: no login form: ${page.status} ${page.body.slice(0, 200)}`);
      const form = { username: USER.username, password: USER.password, credentialId: '' };
      return browser.follow(action.replace(/&amp;/g, '&'), { form });
    },
  );
}

const refreshForm = (c: PeerClient, refresh_token: string) => ({
  grant_type: 'refresh_token',
  refresh_token,
  ...c,
});

/** Starts Keycloak, sets up the realm, clients and tokens, and writes its request files. */
export async function startKeycloak(bench: Bench, home: string, javaHome: string, tokens: number) {
  const [port, managementPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${port}`;
  const adminPassword = randomBytes(12).toString('base64url');
  const args = ['start-dev', '--db=dev-mem', '--http-host=127.0.0.1', `--http-port=${port}`];
  const p = startProcess(
    'keycloak',
    join(home, 'bin', 'kc.sh'),
    [...args, `--http-management-port=${managementPort}`],
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
  // The master realm's admin token lives 60 s: every client is created before the minting below.
  const { access_token: token } = await callJson<{ access_token: string }>(
    `${origin}/realms/master/protocol/openid-connect/token`,
    { form: { grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: adminPassword } },
  );
  await setUpRealm(origin, token);
  bench.log(
    `keycloak: 11 code flows through its login page, ${tokens} refresh grants for the introspection pool`,
  );
  const introspector = await createClient(origin, token, 'bench-introspection');
  const services: PeerClient[] = [];
  for (let i = 0; i < 10; i++) services.push(await createClient(origin, token, `bench-service-${i}`));
  const session = await keycloakFlow(origin, introspector);
  const pool = await pooled(Array.from({ length: tokens }), 4, async () => {
    const form = refreshForm(introspector, session.refresh_token);
    return (await callJson<{ access_token: string }>(`${origin}${TOKEN_PATH}`, { form })).access_token;
  });
  const refreshLines = await pooled(services, 1, async (c) =>
    formLine(TOKEN_PATH, refreshForm(c, (await keycloakFlow(origin, c)).refresh_token)),
  );
  const introspect = (t: string) => introspectionLine(`${TOKEN_PATH}/introspect`, t, introspector);
  const register = registration('bench agent');
  return {
    name: 'keycloak',
    label: 'Keycloak 26.5.6 (start-dev, embedded H2 in memory, JWT access tokens)',
    processes: { keycloak: pid },
    stop: p.stop,
    introspection: peerLoad(bench, origin, 'keycloak-introspection', pool.map(introspect)),
    refresh: peerLoad(bench, origin, 'keycloak-refresh', refreshLines),
    registration: peerLoad(bench, origin, 'keycloak-register', [
      jsonLine(`/realms/${REALM}/clients-registrations/openid-connect`, register),
    ]),
    notes: {
      introspection:
        'keycloak: access tokens are JWTs (introspection checks the signature, the session and the user)',
      registration:
        'keycloak: anonymous registration with its trusted-hosts policy listing 127.0.0.1 and its 200-client limit raised',
    },
  };
}
