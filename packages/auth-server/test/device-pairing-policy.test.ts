/**
 * DEVICE_PAIRING=integrations: only operator integrations that list the device_code grant type may
 * pair devices. Open registration refuses to list it; a self-registered client gets
 * oidc-provider's `invalid_request` ("… is not allowed for this client") at the device authorization
 * endpoint and at the token endpoint; an
 * integration created with `--device-pairing` gets a code, and one created without it does not.
 */
import { describe, expect, it } from '@jest/globals';
import { DEVICE_CODE_GRANT_TYPE } from '@school/shared';
import { createIntegration } from '../src/provider/operator-clients.js';
import { authServerForFile } from '../../../test-support/auth-server.js';

const auth = authServerForFile({ DEVICE_PAIRING: 'integrations' });

const post = (path: string, body: Record<string, string>) =>
  fetch(`${auth.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });

const register = (body: object) =>
  fetch(`${auth.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], ...body }),
  });

describe('device pairing for integrations only', () => {
  it('advertises the endpoint and the grant type', async () => {
    const metadata = (await (
      await fetch(`${auth.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.device_authorization_endpoint).toBe(`${auth.issuer}/api/oauth/device/auth`);
    expect(metadata.grant_types_supported).toContain(DEVICE_CODE_GRANT_TYPE);
  });

  it('refuses the grant type at open registration', async () => {
    const res = await register({ grant_types: ['authorization_code', DEVICE_CODE_GRANT_TYPE] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining('operator integrations only') as unknown,
    });
  });

  it('refuses a self-registered client at both endpoints', async () => {
    const { client_id } = (await (await register({})).json()) as { client_id: string };
    const asked = await post('/api/oauth/device/auth', { client_id, scope: 'school:read' });
    expect(asked.status).toBe(400);
    expect(await asked.json()).toMatchObject({
      error: 'invalid_request',
      error_description: `${DEVICE_CODE_GRANT_TYPE} is not allowed for this client`,
    });
    const polled = await post('/api/oauth/token', {
      client_id,
      grant_type: DEVICE_CODE_GRANT_TYPE,
      device_code: 'x',
    });
    expect(polled.status).toBe(400);
    expect(await polled.json()).toMatchObject({
      error: 'invalid_request',
      error_description: 'requested grant type is not allowed for this client',
    });
  });

  it('gives a code to an integration that may pair devices, and none to one that may not', async () => {
    const pairing = await createIntegration(
      auth.running.provider,
      'Lab agent',
      ['https://lab.example/callback'],
      { devicePairing: true },
    );
    const asked = await post('/api/oauth/device/auth', {
      client_id: pairing.client_id,
      client_secret: pairing.client_secret,
      scope: 'school:read',
    });
    expect(asked.status).toBe(200);
    const body = (await asked.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ verification_uri: `${auth.issuer}/oauth/device`, expires_in: 300 });
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);

    const plain = await createIntegration(auth.running.provider, 'Web CRM', ['https://crm.example/callback']);
    const refused = await post('/api/oauth/device/auth', {
      client_id: plain.client_id,
      client_secret: plain.client_secret,
      scope: 'school:read',
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_request' });
  });
});
