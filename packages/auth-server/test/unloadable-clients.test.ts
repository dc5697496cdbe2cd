/**
 * A client that cannot be loaded never takes a person's page down. The admin allowed four apps: a
 * metadata-document client whose host then refuses its document, one whose https callbacks the
 * operator then disallowed (so its document no longer passes the policy), a registered client whose
 * record in Redis is then corrupted, and a healthy one. Every list page (Connected apps, All
 * clients, Activity, Staff accounts) still answers 200, shows each unusable app by its client id and
 * what is missing, and its Revoke and Delete still work. The documents are served by a real HTTPS
 * server on loopback with a test CA.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, startAuthWithDocuments, type TestAuthServer } from '../../../test-support/auth-server.js';
import {
  FormBrowser,
  openAccountPage,
  pieceContaining,
  type Page,
} from '../../../test-support/form-browser.js';
import type { DocumentServer } from '../../../test-support/https-documents.js';
import { REDIRECT } from '../../../test-support/oauth-flow.js';
import { allowCimdClient, disallowCimdClient } from '../src/cimd/cimd-operator.js';
import { modelKey } from '../src/storage/redis-keys.js';
import { isActive, registerClient, signIn } from './oauth-http.js';

let docs: DocumentServer;
let auth: TestAuthServer;
/** The host refuses its document now. */
let refusedDoc: string;
/** Its https callbacks were allowed, then disallowed. */
let disallowedDoc: string;
/** Its record in Redis does not read. */
let corrupt: string;
let healthyToken: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client_id URL on the document server serving `doc`, never cached; and its path. */
const publish = (doc: Record<string, unknown>) => docs.publish(doc, { maxAge: 0 });

beforeAll(async () => {
  ({ docs, auth } = await startAuthWithDocuments({
    CIMD_CACHE_MIN_SECONDS: '0',
    CIMD_STALE_SECONDS: '0',
    CIMD_FETCHES_PER_MINUTE_PER_HOST: '600',
  }));
  const prefix = auth.config.REDIS_KEY_PREFIX;
  const scope = 'openid courses:read';

  const refused = publish({ client_name: 'Notes agent', redirect_uris: [REDIRECT] });
  refusedDoc = refused.clientId;
  await signIn(auth, { clientId: refusedDoc }, { scope });

  const web = 'https://notes.example/cb';
  disallowedDoc = publish({ client_name: 'Web notes', redirect_uris: [web] }).clientId;
  await allowCimdClient(auth.running.redis, prefix, disallowedDoc);
  await signIn(auth, { clientId: disallowedDoc }, { scope, redirectUri: web });

  const broken = await registerClient(auth, { client_name: 'Broken Record' });
  corrupt = broken.clientId;
  await signIn(auth, broken, { scope });
  const healthy = await registerClient(auth, { client_name: 'Lesson Planner' });
  healthyToken = (await signIn(auth, healthy, { scope })).access_token;

  // Now: the host refuses the first document, the operator takes back the second's https
  // callbacks, and the registered client's record is corrupt.
  docs.route(refused.path, (_req, res) => res.writeHead(404).end());
  await disallowCimdClient(auth.running.redis, prefix, disallowedDoc);
  await auth.running.redis.set(modelKey(prefix, 'Client', corrupt), '{"client_id": not json');
}, 120_000);
afterAll(async () => {
  await auth?.stop();
  await docs?.close();
});

/** Opens an account page as the admin; waits out the few seconds a client stays cached in process. */
async function openPage(browser: FormBrowser, path: string, until: (page: Page) => boolean): Promise<Page> {
  let page = await openAccountPage(browser, path, ADMIN);
  for (let tries = 0; tries < 60 && !until(page); tries++) {
    await sleep(200);
    page = await browser.follow(path);
  }
  return page;
}

/** The card of the app `clientId` on Connected apps. */
const card = (page: Page, clientId: string) => pieceContaining(page.body, '<section class="card"', clientId);

/**
 * Opens the confirmation page of `action` for `clientId`, which must answer 200 and say what is
 * `missing`, and submits its form; the page after it, 200.
 */
async function confirmAndSubmit(
  browser: FormBrowser,
  action: 'apps/revoke' | 'clients/delete',
  clientId: string,
  missing: string,
): Promise<Page> {
  const confirm = await browser.request(
    `/oauth/account/${action}?${new URLSearchParams({ client_id: clientId }).toString()}`,
  );
  expect(confirm.status).toBe(200);
  expect(confirm.body).toContain(missing);
  const after = await browser.submit(confirm, `/${action}`, { client_id: clientId });
  expect(after.status).toBe(200);
  return after;
}

describe('Connected apps', () => {
  it('lists every app, those that cannot be loaded by their client id and what is missing', async () => {
    const page = await openPage(new FormBrowser(auth.issuer), '/oauth/account/apps', (p) =>
      p.body.includes('Client record unavailable'),
    );
    expect(page.status).toBe(200);
    expect(card(page, refusedDoc)).toContain('Metadata document unavailable');
    expect(card(page, disallowedDoc)).toContain('Metadata document unavailable');
    expect(card(page, corrupt)).toContain('Client record unavailable');
    expect(page.body).toContain('<bdi>Lesson Planner</bdi>');
    expect(page.body).not.toContain('Notes agent'); // nothing is shown that was not loaded now
  });

  it('revokes an app whose document cannot be used, and shows the page after it', async () => {
    const browser = new FormBrowser(auth.issuer);
    await openPage(browser, '/oauth/account/apps', (p) => p.status === 200);
    for (const clientId of [refusedDoc, disallowedDoc]) {
      const after = await confirmAndSubmit(browser, 'apps/revoke', clientId, 'Metadata document unavailable');
      expect(after.body).toContain('has ended');
      expect(card(after, clientId)).toBeUndefined();
    }
    expect(await isActive(auth, healthyToken)).toBe(true);
  });
});

describe('the admins’ pages', () => {
  it('list the unreadable client on All clients, and Delete removes it', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openPage(browser, '/oauth/account/clients', (p) => p.status === 200);
    expect(page.status).toBe(200);
    const row = pieceContaining(page.body, '<tr>', corrupt);
    expect(row).toContain('Client record unavailable');
    expect(page.body).toContain('<bdi>Lesson Planner</bdi>');
    const after = await confirmAndSubmit(browser, 'clients/delete', corrupt, 'Client record unavailable');
    expect(after.body).toContain('was deleted');
    const key = modelKey(auth.config.REDIS_KEY_PREFIX, 'Client', corrupt);
    expect(await auth.running.redis.exists(key)).toBe(0);
  });

  it('answer Activity, naming an unreadable client by its id, and Staff accounts', async () => {
    // Registered (an audited event that names it), then its record corrupted.
    const again = await registerClient(auth, { client_name: 'Broken Again' });
    const key = modelKey(auth.config.REDIS_KEY_PREFIX, 'Client', again.clientId);
    await auth.running.redis.set(key, '{"client_id": not json');
    const browser = new FormBrowser(auth.issuer);
    const activity = await openPage(browser, '/oauth/account/activity', (p) => p.status === 200);
    expect(activity.status).toBe(200);
    expect(activity.body).toContain(again.clientId);
    const staff = await browser.follow('/oauth/account/staff');
    expect(staff.status).toBe(200);
    expect(staff.body).toContain(ADMIN.email);
  });
});
