/**
 * The reuse window's rules for hosted clients (provider/refresh-extension/, docs/decisions.md "Refresh
 * tokens of hosted clients"): a connector running in its provider's cloud (here a metadata-document
 * client an operator allowed a fixed https callback) refreshes from several workers and addresses at
 * once. Within HOSTED_REFRESH_RACE of a rotation, the token it replaced presented from another address
 * is answered with the grant's current refresh token; later, or a token a generation older, it is theft
 * and the grant ends. Addresses inside the egress ranges an operator listed (`school-auth clients
 * set-egress`, run as a real process) are one installation for the whole window. A loopback client
 * keeps the address rule. The other addresses are loopback source addresses (127.0.0.2, 127.0.0.3:
 * Linux routes all of 127.0.0.0/8 to `lo`), which the server sees as the client address.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  runSchoolAuth,
  startAuthWithDocuments,
  type TestAuthServer,
} from '../../../test-support/auth-server.js';
import { postFormFrom, type AnswerFrom } from '../../../test-support/from-address.js';
import type { DocumentServer } from '../../../test-support/https-documents.js';
import type { AuditEventType } from '../src/audit/audit-log.js';
import { allowCimdClient } from '../src/cimd/cimd-operator.js';
import {
  auditedEvents,
  isActive,
  registerClient,
  signIn,
  type TestClient,
  type Tokens,
} from './oauth-http.js';

const RACE_SECONDS = 3;
const CALLBACK = 'https://connector.example/api/mcp/auth_callback';

let docs: DocumentServer;
let auth: TestAuthServer;

beforeAll(async () => {
  ({ docs, auth } = await startAuthWithDocuments({
    REFRESH_REUSE_GRACE: '120',
    HOSTED_REFRESH_RACE: String(RACE_SECONDS),
    // Every connector here is a new document on the one local host, fetched from 127.0.0.1: more
    // first fetches than one sender's share of the default host budget.
    CIMD_FETCHES_PER_MINUTE_PER_HOST: '300',
  }));
});
afterAll(() => Promise.all([auth.stop(), docs.close()]));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A hosted connector: a metadata-document client with one https callback, allowed by the operator. */
async function hostedConnector(): Promise<TestClient> {
  const { clientId } = docs.publish(
    { client_name: 'Hosted connector', redirect_uris: [CALLBACK] },
    { dir: 'connectors', maxAge: 600 },
  );
  await allowCimdClient(auth.running.redis, auth.config.REDIS_KEY_PREFIX, clientId);
  return { clientId };
}

const signInWith = (client: TestClient, redirectUri?: string) =>
  signIn(auth, client, { scope: 'openid courses:read', ...(redirectUri ? { redirectUri } : {}) });

/** A refresh of `token` by `client` sent from the loopback address `from`. */
const refreshFrom = (from: string, client: TestClient, token: string) =>
  postFormFrom(auth.issuer, from, '/api/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: client.clientId,
  });

const tokensOf = (res: AnswerFrom): Tokens => {
  expect({ status: res.status, error: res.body.error_description }).toEqual({
    status: 200,
    error: undefined,
  });
  return res.body as unknown as Tokens;
};

const expectTheft = (res: AnswerFrom) => {
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
};

/** Audit events of `type` for `client` whose details say `details` (written in batches). */
const audited = (type: AuditEventType, client: TestClient, details: RegExp) =>
  auditedEvents(auth, type, client.clientId, details);

/** Whether every one of `tokens` is dead. */
const allDead = async (tokens: string[]) => {
  for (const token of tokens)
    expect({ token, active: await isActive(auth, token) }).toEqual({ token, active: false });
};

describe('a hosted connector within the race window', () => {
  it('gets working tokens for parallel refreshes from two addresses, and keeps its grant', async () => {
    const connector = await hostedConnector();
    const first = await signInWith(connector, CALLBACK);
    const [a, b] = (
      await Promise.all([
        refreshFrom('127.0.0.2', connector, first.refresh_token),
        refreshFrom('127.0.0.3', connector, first.refresh_token),
      ])
    ).map(tokensOf);
    // One live refresh token for both workers: the grant's current one.
    expect(a!.refresh_token).toBe(b!.refresh_token);
    expect(a!.refresh_token).not.toBe(first.refresh_token);
    expect(await isActive(auth, a!.access_token)).toBe(true);
    expect(await isActive(auth, b!.access_token)).toBe(true);
    // The grant lives on: the next rotation works, from either address.
    const next = tokensOf(await refreshFrom('127.0.0.3', connector, a!.refresh_token));
    expect(await isActive(auth, next.access_token)).toBe(true);
    expect(await isActive(auth, a!.access_token)).toBe(true);
  });

  it("answers the replaced token from another address with the grant's current one, audited as reuse", async () => {
    const connector = await hostedConnector();
    const first = await signInWith(connector, CALLBACK);
    const rotated = tokensOf(await refreshFrom('127.0.0.2', connector, first.refresh_token));
    const raced = tokensOf(await refreshFrom('127.0.0.3', connector, first.refresh_token));
    expect(raced.refresh_token).toBe(rotated.refresh_token);
    expect(raced.access_token).not.toBe(rotated.access_token);
    expect(await isActive(auth, raced.access_token)).toBe(true);
    expect(
      await audited('refresh_token_reuse_allowed', connector, /"same_installation_by":"hosted_race"/),
    ).not.toEqual([]);
  });
});

describe('a hosted connector, as theft: the grant ends', () => {
  it('beyond the race window, from another address', async () => {
    const connector = await hostedConnector();
    const first = await signInWith(connector, CALLBACK);
    const rotated = tokensOf(await refreshFrom('127.0.0.2', connector, first.refresh_token));
    await sleep(RACE_SECONDS * 1000 + 1500);
    expectTheft(await refreshFrom('127.0.0.3', connector, first.refresh_token));
    await allDead([rotated.access_token, rotated.refresh_token]);
    expect(await audited('refresh_token_reuse', connector, /after the race window/)).not.toEqual([]);
  }, 30_000);

  it('a generation older, from another address, even within the race window', async () => {
    const connector = await hostedConnector();
    const first = await signInWith(connector, CALLBACK);
    const second = tokensOf(await refreshFrom('127.0.0.2', connector, first.refresh_token));
    const third = tokensOf(await refreshFrom('127.0.0.2', connector, second.refresh_token));
    expectTheft(await refreshFrom('127.0.0.3', connector, first.refresh_token));
    await allDead([third.access_token, third.refresh_token]);
    expect(await audited('refresh_token_reuse', connector, /a generation older/)).not.toEqual([]);
  });
});

describe('egress ranges an operator listed', () => {
  it('make addresses inside them one installation for the whole window; outside them it is theft', async () => {
    const connector = await hostedConnector();
    const listed = runSchoolAuth(auth.config, ['clients', 'set-egress', connector.clientId, '127.0.0.2/31']);
    expect({ status: listed.status, stderr: listed.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(listed.stdout)).toEqual({
      client_id: connector.clientId,
      egress_ranges: ['127.0.0.2/31'],
    });
    const first = await signInWith(connector, CALLBACK);
    const second = tokensOf(await refreshFrom('127.0.0.2', connector, first.refresh_token));
    const third = tokensOf(await refreshFrom('127.0.0.2', connector, second.refresh_token));
    await sleep(RACE_SECONDS * 1000 + 1500);
    // Past the race window and two generations old, but from inside the ranges: the same installation.
    const answered = tokensOf(await refreshFrom('127.0.0.3', connector, first.refresh_token));
    expect(answered.refresh_token).toBe(third.refresh_token);
    expect(await isActive(auth, answered.access_token)).toBe(true);
    expect(
      await audited('refresh_token_reuse_allowed', connector, /"same_installation_by":"egress_range"/),
    ).not.toEqual([]);
    // From outside them (127.0.0.4), a rotated token is theft as ever.
    expectTheft(await refreshFrom('127.0.0.4', connector, second.refresh_token));
    await allDead([answered.access_token, third.refresh_token]);
  }, 30_000);

  it('are refused for a client that is not hosted, and when wider than a provider’s block', async () => {
    const loopbackClient = await registerClient(auth);
    const notHosted = runSchoolAuth(auth.config, [
      'clients',
      'set-egress',
      loopbackClient.clientId,
      '10.0.0.0/24',
    ]);
    expect(notHosted.status).toBe(1);
    expect(notHosted.stderr).toMatch(/is not a hosted client/);
    const connector = await hostedConnector();
    const wide = runSchoolAuth(auth.config, ['clients', 'set-egress', connector.clientId, '0.0.0.0/0']);
    expect(wide.status).toBe(1);
    expect(wide.stderr).toMatch(/wider than an IPv4 \/16/);
    const shown = runSchoolAuth(auth.config, ['clients', 'egress']);
    expect(JSON.parse(shown.stdout)).not.toContainEqual(
      expect.objectContaining({ client_id: connector.clientId }),
    );
  });
});

describe('a loopback client', () => {
  it('keeps the address rule: its replaced token from another address ends the grant at once', async () => {
    const client = await registerClient(auth);
    const first = await signInWith(client);
    const rotated = tokensOf(await refreshFrom('127.0.0.2', client, first.refresh_token));
    expectTheft(await refreshFrom('127.0.0.3', client, first.refresh_token));
    await allDead([rotated.access_token, rotated.refresh_token]);
    expect(await audited('refresh_token_reuse', client, /another address than its last refresh/)).not.toEqual(
      [],
    );
  });
});
