/**
 * Several instances behind the edge: two auth servers and two resource APIs, as
 * `AUTH_INSTANCES=2 API_INSTANCES=2 scripts/start` runs them. The services keep no state of their own,
 * so a flow whose every request lands on another instance than the one before works, and an instance
 * stopped under load (SIGTERM) costs no client a failed request the edge could have sent elsewhere.
 *
 * Which instance served a request is read from the instances' own request logs: the edge gives each
 * request an id (X-Request-Id), which the service echoes on the answer and writes in its log line.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FormBrowser, type Page } from '../test-support/form-browser.js';
import {
  codeExchange,
  obtainCode,
  postForm,
  register,
  REDIRECT,
  tokenRequest,
  type HttpResult,
} from '../test-support/oauth-flow.js';
import { E2E_ADMIN, instanceName, startStack, type Stack } from './support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_PER_ADDRESS: '1000000', RATE_LIMIT_TOKEN: '1000000' }, 'http', {
    auth: 2,
    api: 2,
  });
}, 120_000);
afterAll(() => stack?.stop());

const INSTANCES = [0, 1].flatMap((k) => [instanceName('auth-server', k), instanceName('resource-api', k)]);

/** The instance whose request log has `requestId` (log lines reach the output within 250 ms). */
async function servedBy(requestId: string | null): Promise<string> {
  for (let i = 0; i < 40 && requestId; i++) {
    const found = INSTANCES.find((name) => stack.logs[name]!.join('').includes(`"requestId":"${requestId}"`));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no instance logged request ${requestId}`);
}

/** Waits until the auth servers' logs hold `count` introspection requests (at most 4 s). */
async function introspectionsLogged(count: number): Promise<void> {
  const logged = () =>
    [0, 1]
      .map((k) => stack.logs[instanceName('auth-server', k)]!.join(''))
      .join('')
      .split('"path":"/api/oauth/introspect"').length - 1;
  for (let i = 0; i < 40 && logged() < count; i++) await new Promise((r) => setTimeout(r, 100));
  expect(logged()).toBe(count);
}

/** The form browser, noting the request id of every answer it gets. */
class NotingBrowser extends FormBrowser {
  readonly seen: { what: string; id: string | null }[] = [];
  override async request(url: string, init: Parameters<FormBrowser['request']>[1] = {}): Promise<Page> {
    const page = await super.request(url, init);
    this.seen.push({
      what: `${init.form ? 'POST' : 'GET'} ${new URL(page.url).pathname}`,
      id: page.headers.get('x-request-id'),
    });
    return page;
  }
}

describe('two auth servers and two resource APIs behind the edge', () => {
  it('run a whole flow whose every request lands on another instance than the one before', async () => {
    const issuer = { issuer: stack.baseUrl };
    const steps: { what: string; id: string | null }[] = [];
    const note = (what: string, res: HttpResult | Response) => {
      steps.push({ what, id: res.headers.get('x-request-id') });
      return res;
    };
    const registered = note(
      'register',
      await register(issuer, { client_name: 'fleet', redirect_uris: [REDIRECT] }),
    ) as HttpResult;
    expect(registered.status).toBe(201);
    const client = { clientId: (registered.body as { client_id: string }).client_id };
    const browser = new NotingBrowser(stack.baseUrl);
    const issued = await obtainCode(issuer, client, {
      scope: 'openid courses:read',
      account: E2E_ADMIN,
      browser,
    });
    steps.push(...browser.seen);
    const exchanged = note('token', await tokenRequest(issuer, codeExchange(client, issued))) as HttpResult;
    expect(exchanged.status).toBe(200);
    const tokens = exchanged.body as { access_token: string; refresh_token: string };
    const api = async (token: string) =>
      note(
        'API',
        await fetch(`${stack.baseUrl}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` } }),
      );
    for (let i = 0; i < 2; i++) expect((await api(tokens.access_token)).status).toBe(200);
    // Each API instance also reports, unawaited, that courses:read was used (one more introspection
    // each): wait for both, so that they take their turns of the round robin before the refresh.
    await introspectionsLogged(4);
    const refresh = {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    };
    const refreshed = note(
      'refresh',
      await postForm(`${stack.baseUrl}/api/oauth/token`, refresh),
    ) as HttpResult;
    expect(refreshed.status).toBe(200);
    const access = (refreshed.body as { access_token: string }).access_token;
    const revoke = { token: access, client_id: client.clientId };
    expect(note('revoke', await postForm(`${stack.baseUrl}/api/oauth/revoke`, revoke)).status).toBe(200);
    // The revocation reaches both API instances (Redis pub/sub), whichever auth server revoked.
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 2; i++) expect((await api(access)).status).toBe(401);

    const served = await Promise.all(steps.map(async (s) => ({ ...s, by: await servedBy(s.id) })));
    const auth = served.filter((s) => s.by.startsWith('auth-server'));
    const apis = served.filter((s) => s.by.startsWith('resource-api'));
    expect(auth.length).toBeGreaterThanOrEqual(10); // register, authorize … consent, token, refresh, revoke
    expect(apis.map((s) => s.what)).toEqual(['API', 'API', 'API', 'API']);
    // The edge's round robin, with the API's four introspections (two token-cache misses and two
    // scope-use reports, one of each per API instance) in between: every request of the flow went to
    // the other instance than the one before.
    for (const list of [auth, apis]) {
      for (let i = 1; i < list.length; i++) {
        expect(`${list[i]!.what} on ${list[i]!.by}`).not.toBe(`${list[i]!.what} on ${list[i - 1]!.by}`);
      }
    }
  });

  it('lose no request the edge could send elsewhere when one instance of each is stopped (SIGTERM) under load', async () => {
    const issuer = { issuer: stack.baseUrl };
    const registered = await register(issuer, { client_name: 'load', redirect_uris: [REDIRECT] });
    const client = { clientId: (registered.body as { client_id: string }).client_id };
    const issued = await obtainCode(issuer, client, { scope: 'openid courses:read', account: E2E_ADMIN });
    const { access_token: token } = (await tokenRequest(issuer, codeExchange(client, issued))).body as {
      access_token: string;
    };
    const auth = { authorization: `Bearer ${token}` };
    // Idempotent reads of both services, and POSTs the auth server refuses (nothing is changed).
    const requests: { method: string; path: string; init?: RequestInit }[] = [
      { method: 'GET', path: '/api/v1/courses', init: { headers: auth } },
      { method: 'GET', path: '/.well-known/oauth-authorization-server' },
      {
        method: 'POST',
        path: '/api/oauth/token',
        init: {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: 'unknown',
            client_id: client.clientId,
          }),
        },
      },
      { method: 'GET', path: '/api/v1/courses', init: { headers: auth } },
    ];
    let inflight = 0;
    let running = true;
    const answers: { method: string; path: string; status: number }[] = [];
    const worker = async (w: number) => {
      for (let i = w; running; i++) {
        const r = requests[i % requests.length]!;
        inflight++;
        const status = await fetch(`${stack.baseUrl}${r.path}`, r.init).then(
          async (res) => (await res.arrayBuffer(), res.status),
          () => 0,
        );
        inflight--;
        answers.push({ method: r.method, path: r.path, status });
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    let before: number;
    let inflightAtStop: number;
    const stopping = [instanceName('auth-server', 1), instanceName('resource-api', 1)];
    try {
      await new Promise((r) => setTimeout(r, 1500));
      before = answers.length;
      inflightAtStop = inflight;
      await Promise.all(stopping.map((name) => stack.processes[name]!.stop('SIGTERM')));
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      running = false; // also when a stop failed: workers left looping would keep jest alive
      await Promise.all(workers);
    }

    for (const name of stopping) expect(stack.exits[name]).toBe(0);
    const failed = answers.filter((a) => a.status === 0 || a.status >= 500);
    const after = answers.slice(before);
    console.info(
      `${answers.length} requests, ${after.length} of them once the stop began; ${inflightAtStop} in flight at the SIGTERM; failed: ${JSON.stringify(failed)}`,
    );
    expect(after.length).toBeGreaterThan(20); // the load went on while the instances stopped
    // A read is retried on the other instance whatever happens; any other failure could only be a
    // request the stopped process had already received.
    expect(failed.filter((a) => a.method === 'GET')).toEqual([]);
    expect(failed.length).toBeLessThanOrEqual(inflightAtStop);
    expect(failed).toEqual([]);
    expect(answers.every((a) => [200, 400, 401].includes(a.status))).toBe(true);
  }, 60_000);
});
