/**
 * Readiness checks what serving needs, introspection with the API's own credentials included, and
 * liveness stays cheap, against the real auth server.
 */
import { describe, expect, it } from '@jest/globals';
import { freePort } from '../../../test-support/processes.js';
import {
  authAndApiForFile,
  call,
  introspectionCounter,
  withResourceApi,
} from '../../../test-support/resource-api.js';

const { auth, api } = authAndApiForFile();

describe('/readyz', () => {
  it('answers 200 when MongoDB, Redis and introspection with the API’s credentials all work', async () => {
    const ready = await call(api.url, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ok',
      checks: { mongodb: 'ok', redis: 'ok', introspection: 'ok' },
    });
  });

  it('answers 503 naming the credentials when the introspection secret is wrong', async () => {
    await withResourceApi(
      auth,
      { INTROSPECTION_CLIENT_SECRET: 'not-the-secret-'.padEnd(40, 'x') },
      async (wrong) => {
        const ready = await call(wrong.url, '/readyz');
        expect(ready.status).toBe(503);
        const checks = (ready.body as { checks: Record<string, string> }).checks;
        expect(checks).toMatchObject({ mongodb: 'ok', redis: 'ok' });
        expect(checks.introspection).toMatch(/credentials refused.*INTROSPECTION_CLIENT_SECRET/);
      },
    );
  });

  it('answers 503 when the auth server cannot be reached', async () => {
    const nobody = await freePort();
    await withResourceApi(auth, { AUTH_INTERNAL_URL: `http://127.0.0.1:${nobody}` }, async (cut) => {
      const ready = await call(cut.url, '/readyz');
      expect(ready.status).toBe(503);
      expect((ready.body as { checks: Record<string, string> }).checks.introspection).toMatch(
        /^auth server unavailable: /,
      );
      // Liveness consults nothing: the process is alive.
      expect((await call(cut.url, '/healthz')).status).toBe(200);
    });
  });

  it('introspects at most once per few seconds however often it is asked, and liveness never does', async () => {
    await withResourceApi(auth, {}, async (fresh) => {
      const counter = introspectionCounter(auth);
      const answers = await Promise.all(Array.from({ length: 20 }, () => call(fresh.url, '/readyz')));
      for (let i = 0; i < 20; i++) answers.push(await call(fresh.url, '/readyz'));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(counter.count).toBeLessThanOrEqual(2);
      const before = counter.count;
      for (let i = 0; i < 10; i++) await call(fresh.url, '/healthz');
      expect(counter.count).toBe(before);
    });
  });
});
