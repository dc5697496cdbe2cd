/**
 * Keycloak's admin REST API, as an operator would use it to prepare the bench: the admin token, a
 * realm `bench` (access tokens valid for an hour, so none expires during the bench) with one user,
 * anonymous client registration opened to 127.0.0.1 (its trusted-hosts policy) with its 200-client
 * limit raised to 10 million (the other anonymous policies kept), and confidential clients
 * authenticating with `client_secret_post`.
 */
import { randomBytes } from 'node:crypto';
import { REDIRECT } from '#test-support/oauth-flow.js';
import { callJson, type PeerClient } from './peer.js';

/** The bench's realm. */
export const REALM = 'bench';

/** The realm's user (its password made fresh per run). */
export const USER = { username: 'bench', password: randomBytes(12).toString('base64url') };

/** An access token of the master realm's admin (it lives 60 s). */
export async function adminToken(origin: string, password: string): Promise<string> {
  const { body } = await callJson<{ access_token: string }>(
    `${origin}/realms/master/protocol/openid-connect/token`,
    { form: { grant_type: 'password', client_id: 'admin-cli', username: 'admin', password } },
  );
  return body.access_token;
}

/** Creates the realm, its user and its anonymous-registration policy changes. */
export async function setUpRealm(origin: string, token: string): Promise<void> {
  const admin = `${origin}/admin/realms`;
  await callJson(admin, {
    token,
    json: { realm: REALM, enabled: true, accessTokenLifespan: 3600, ssoSessionIdleTimeout: 7200 },
  });
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
  const { body: policies } = await callJson<
    { id: string; providerId: string; subType: string; config: object }[]
  >(`${components}?type=org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy`, { token });
  for (const p of policies.filter((x) => x.subType === 'anonymous')) {
    const config =
      p.providerId === 'trusted-hosts'
        ? { ...p.config, 'trusted-hosts': ['127.0.0.1'] }
        : p.providerId === 'max-clients'
          ? { ...p.config, 'max-clients': ['10000000'] }
          : undefined;
    if (config)
      await callJson(`${components}/${p.id}`, { method: 'PUT', token, json: { ...p, config } }, [204]);
  }
}

/** A confidential client of the realm with a fresh secret. */
export async function createClient(origin: string, token: string, clientId: string): Promise<PeerClient> {
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
