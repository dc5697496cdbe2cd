/**
 * The school's app reviews and review requests on real Redis: which rule decides (a block wins, a
 * domain covers its subdomains, integrations count as allowed when unreviewed), and the bounds on
 * review requests a stranger's apps could otherwise fill storage with (one entry per app, asking again
 * changes nothing, per-account and total caps, nothing written over a cap, names cut).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { scanKeys } from '@school/shared';
import { SERVICES } from '../../../test-support/auth-server.js';
import {
  dropAnsweredRequests,
  listReviewRequests,
  MAX_PENDING,
  MAX_PER_ACCOUNT,
  requestReview,
} from '../src/storage/app-review-requests.js';
import { admissionOf, appStanding, clearReview, setReview } from '../src/storage/app-reviews.js';
import { appReviewRequestsKey, modelKey } from '../src/storage/redis-keys.js';

let redis: Redis;
let prefix: string;
const fresh = () => (prefix = `test:reviews:${randomBytes(5).toString('hex')}:`);

beforeAll(() => {
  redis = new Redis(SERVICES.redisUrl);
});
afterAll(async () => {
  for await (const keys of scanKeys(redis, 'test:reviews:')) if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const by = { by: 'admin@school.test' };
const doc = (host: string) => `https://${host}/agents/client.json`;

describe('which review decides', () => {
  it('covers a domain’s subdomains, never a look-alike, and lets a block win over an allow', async () => {
    fresh();
    await setReview(redis, prefix, { target: 'domain', value: 'example.com', review: 'blocked', ...by });
    await setReview(redis, prefix, {
      target: 'client',
      value: doc('mcp.example.com'),
      review: 'allowed',
      ...by,
    });
    expect((await appStanding(redis, prefix, doc('mcp.example.com'))).review).toBe('blocked');
    expect((await appStanding(redis, prefix, doc('example.com'))).review).toBe('blocked');
    expect((await appStanding(redis, prefix, doc('evil-example.com'))).review).toBe('unreviewed');
    expect((await appStanding(redis, prefix, doc('example.com.evil'))).review).toBe('unreviewed');
    await clearReview(redis, prefix, 'domain', 'example.com');
    expect((await appStanding(redis, prefix, doc('mcp.example.com'))).review).toBe('allowed');
  });

  it('reads an unreviewed app as the setting says, an operator’s integration as allowed', async () => {
    fresh();
    const open = 'app-open-1';
    const integration = 'int-made-by-operator';
    await redis.set(modelKey(prefix, 'Client', open), JSON.stringify({ client_id: open }));
    await redis.set(
      modelKey(prefix, 'Client', integration),
      JSON.stringify({ client_id: integration, client_role: 'integration' }),
    );
    expect(await admissionOf(redis, prefix, open, 'allowed')).toBe('allowed');
    expect(await admissionOf(redis, prefix, open, 'ask-admin')).toBe('ask-admin');
    expect(await admissionOf(redis, prefix, doc('new.example'), 'ask-admin')).toBe('ask-admin');
    expect(await admissionOf(redis, prefix, integration, 'ask-admin')).toBe('allowed');
    await setReview(redis, prefix, { target: 'client', value: integration, review: 'blocked', ...by });
    expect(await admissionOf(redis, prefix, integration, 'ask-admin')).toBe('blocked');
    expect(await admissionOf(redis, prefix, 'school-account-pages', 'ask-admin')).toBe('allowed');
  });
});

describe('review requests', () => {
  const staff = (n: number) => ({ accountId: `acct-${n}`, email: `staff${n}@school.test` });
  const app = (n: number) => ({ clientId: `app-${n}`, name: `App ${n}`, kind: 'open' });

  it('keeps one entry per app: asking again changes nothing, another person is added', async () => {
    fresh();
    expect(await requestReview(redis, prefix, app(1), staff(1), 1000)).toBe('recorded');
    expect(await requestReview(redis, prefix, app(1), staff(1), 2000)).toBe('already');
    expect(await requestReview(redis, prefix, app(1), staff(2), 3000)).toBe('recorded');
    const [only, ...rest] = await listReviewRequests(redis, prefix);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ clientId: 'app-1', asked: 2, at: 1000 });
    expect(only!.askers.map((a) => [a.email, a.at])).toEqual([
      ['staff1@school.test', 1000],
      ['staff2@school.test', 3000],
    ]);
  });

  it('refuses one account’s requests past its cap, and every new app past the total, writing nothing', async () => {
    fresh();
    for (let n = 0; n < MAX_PER_ACCOUNT; n++)
      expect(await requestReview(redis, prefix, app(n), staff(1))).toBe('recorded');
    const before = await redis.hgetall(appReviewRequestsKey(prefix));
    expect(await requestReview(redis, prefix, app(999), staff(1))).toBe('too_many');
    expect(await redis.hgetall(appReviewRequestsKey(prefix))).toEqual(before);

    // Many accounts together stop at the total; asking about an app already waiting still counts.
    for (let n = MAX_PER_ACCOUNT; n < MAX_PENDING; n++)
      expect(await requestReview(redis, prefix, app(n), staff(n))).toBe('recorded');
    expect(await requestReview(redis, prefix, app(MAX_PENDING), staff(MAX_PENDING))).toBe('too_many');
    expect(await redis.hlen(appReviewRequestsKey(prefix))).toBe(MAX_PENDING);
    expect(await requestReview(redis, prefix, app(0), staff(MAX_PENDING))).toBe('recorded');
  });

  it('cuts a long name, and drops what a review of the app or its domain answers', async () => {
    fresh();
    await requestReview(redis, prefix, { ...app(1), name: 'x'.repeat(5000) }, staff(1));
    await requestReview(
      redis,
      prefix,
      { clientId: doc('a.example.org'), kind: 'metadata-document' },
      staff(1),
    );
    await requestReview(
      redis,
      prefix,
      { clientId: doc('example.org.evil'), kind: 'metadata-document' },
      staff(1),
    );
    expect((await listReviewRequests(redis, prefix))[0]!.name).toHaveLength(200);
    await dropAnsweredRequests(redis, prefix, 'domain', 'example.org');
    await dropAnsweredRequests(redis, prefix, 'client', 'app-1');
    expect((await listReviewRequests(redis, prefix)).map((r) => r.clientId)).toEqual([
      doc('example.org.evil'),
    ]);
  });
});
