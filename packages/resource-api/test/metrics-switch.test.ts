/**
 * METRICS=false (scripts/bench's MET compares the API with and without): each service then
 * collects nothing and `/metrics` is a 404 in the service's error shape, while it keeps serving. With
 * the default, both serve the exposition, so the switch is what changes the answer.
 */
import { describe, expect, it } from '@jest/globals';
import { startTestAuthServer } from '../../../test-support/auth-server.js';
import { authAndApiForFile, call, startTestResourceApi } from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';

const { auth, api } = authAndApiForFile();
const { auth: authOff, api: apiOff } = authAndApiForFile({
  auth: { METRICS: 'false' },
  api: { METRICS: 'false' },
});

describe('the METRICS switch', () => {
  it('on by default: both services serve the exposition at /metrics', async () => {
    for (const url of [auth.issuer, api.url]) {
      const res = await fetch(`${url}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('nodejs_eventloop_lag_seconds');
    }
  });

  it('METRICS=false: /metrics is a 404 in the error shape, health and the API still answer', async () => {
    for (const url of [authOff.issuer, apiOff.url]) {
      const res = await fetch(`${url}/metrics`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found', error_description: expect.any(String) });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    }
    // The token path (introspection, the verifier's counts) still works with nothing to count into.
    const token = await new TokenSource(authOff).token(['students:read']);
    expect((await call(apiOff.url, '/api/v1/students', { token: 'not-a-token' })).status).toBe(401);
    expect((await call(apiOff.url, '/api/v1/students', { token })).status).toBe(200);
  });

  it('refuses a value that is not a flag at start-up', async () => {
    await expect(startTestResourceApi(auth, { METRICS: 'maybe' })).rejects.toThrow(/METRICS/);
    await expect(startTestAuthServer({ METRICS: 'maybe' })).rejects.toThrow(/METRICS/);
  });
});
