/**
 * The school's reviews of apps: an admin marks an app **allowed** or **blocked** by its client id, or
 * every metadata-document client of a domain at once (clients/app-domain.ts); an app with no review is
 * **unreviewed**, which APP_REVIEW_UNREVIEWED reads as allowed or as "ask an admin first". Stored in one
 * hash (`appReviews`, redis-keys.ts), field `client <id>` or `domain <host>`, so one HMGET reads every
 * rule that can apply to a client.
 *
 * A block wins: a client blocked by id, or under a blocked domain, is blocked even when another rule
 * allows it (an exception under a blocked domain is made by lifting the domain's block and allowing
 * the ids one by one). Integrations and services an operator created count as allowed when unreviewed.
 *
 * Blocking ends the app's grants for every account at once, with every token issued under them
 * (client-removal.ts's {@link endClientGrants}, which publishes the ended access tokens on the
 * revocation feed so every resource API drops its cached answers); the review is written first, so an
 * authorization or a token request racing the block is refused by the review check in front of the
 * provider (http/app-review-gate.ts). Lifting a block brings nothing back: the app asks again.
 */
import { scanKeys, type RedisClient } from '@school/shared';
import { clientIdHost, coveringDomains, domainCovers } from '../clients/app-domain.js';
import { ACCOUNT_CONSOLE_CLIENT_ID, clientKind } from '../clients/client-kind.js';
import { readStoredClient, UNREADABLE } from './client-listing.js';
import { endClientGrants, type EndedGrants } from './client-removal.js';
import { appReviewsKey, clientGrantsPrefix, clientOfGrantsKey, modelKey } from './redis-keys.js';

/** What the school decided about an app. */
export type Review = 'allowed' | 'blocked';

/** Where a review applies: one client id, or every metadata-document client of a domain. */
export type ReviewTarget = 'client' | 'domain';

/** One review as stored. */
export interface AppReview {
  target: ReviewTarget;
  /** The client id, or the domain (clients/app-domain.ts's `reviewDomain` form). */
  value: string;
  review: Review;
  /** The app's name when it was reviewed, for the lists (absent for a domain). */
  name?: string;
  /** Who reviewed it: the admin's email, or `operator` for `school-auth`. */
  by: string;
  /** When, Unix seconds. */
  at: number;
}

/** How an app stands: its review, and the rule that decided it (none when unreviewed). */
export interface AppStanding {
  review: Review | 'unreviewed';
  rule?: AppReview;
}

const fieldOf = (target: ReviewTarget, value: string) => `${target} ${value}`;

function parse(json: string | null): AppReview | undefined {
  if (!json) return undefined;
  try {
    return JSON.parse(json) as AppReview;
  } catch {
    return undefined; // an unreadable entry decides nothing; an admin can write it again
  }
}

/** How `clientId` stands: blocked when any rule blocks it, else allowed when one allows it. */
export async function appStanding(
  redis: RedisClient,
  prefix: string,
  clientId: string,
): Promise<AppStanding> {
  const host = clientIdHost(clientId);
  const fields = [
    fieldOf('client', clientId),
    ...(host ? coveringDomains(host).map((d) => fieldOf('domain', d)) : []),
  ];
  const rules = (await redis.hmget(appReviewsKey(prefix), ...fields))
    .map(parse)
    .filter((r) => r !== undefined);
  const decided = rules.find((r) => r.review === 'blocked') ?? rules.find((r) => r.review === 'allowed');
  return decided ? { review: decided.review, rule: decided } : { review: 'unreviewed' };
}

/** Every review, blocks first, then by target and value. */
export async function listReviews(redis: RedisClient, prefix: string): Promise<AppReview[]> {
  const all = Object.values(await redis.hgetall(appReviewsKey(prefix)))
    .map(parse)
    .filter((r) => r !== undefined);
  return all.sort(
    (a, b) =>
      a.review.localeCompare(b.review) * -1 ||
      a.target.localeCompare(b.target) ||
      a.value.localeCompare(b.value),
  );
}

/** The review of exactly this target, if any. */
export async function reviewOf(
  redis: RedisClient,
  prefix: string,
  target: ReviewTarget,
  value: string,
): Promise<AppReview | undefined> {
  return parse(await redis.hget(appReviewsKey(prefix), fieldOf(target, value)));
}

/** The client ids holding grants now that `target`/`value` covers. */
async function coveredClientsWithGrants(
  redis: RedisClient,
  prefix: string,
  target: ReviewTarget,
  value: string,
): Promise<string[]> {
  if (target === 'client') return [value];
  const out: string[] = [];
  for await (const keys of scanKeys(redis, clientGrantsPrefix(prefix)))
    for (const key of keys) {
      const clientId = clientOfGrantsKey(prefix, key);
      const host = clientIdHost(clientId);
      if (host && domainCovers(value, host)) out.push(clientId);
    }
  return out;
}

/**
 * Records `review` (replacing any review of the same target). A block then ends every grant of the
 * clients it covers, for every account; returns what ended (nothing for an allow).
 */
export async function setReview(
  redis: RedisClient,
  prefix: string,
  review: Omit<AppReview, 'at'>,
  now = Math.floor(Date.now() / 1000),
): Promise<EndedGrants> {
  const stored: AppReview = { ...review, at: now };
  await redis.hset(appReviewsKey(prefix), fieldOf(review.target, review.value), JSON.stringify(stored));
  const ended: EndedGrants = { grants: 0, tokens: 0 };
  if (review.review !== 'blocked') return ended;
  for (const clientId of await coveredClientsWithGrants(redis, prefix, review.target, review.value)) {
    const one = await endClientGrants(redis, prefix, clientId);
    ended.grants += one.grants;
    ended.tokens += one.tokens;
  }
  return ended;
}

/** Removes the review of `target`/`value`: the app is unreviewed again. False when there was none. */
export async function clearReview(
  redis: RedisClient,
  prefix: string,
  target: ReviewTarget,
  value: string,
): Promise<boolean> {
  return (await redis.hdel(appReviewsKey(prefix), fieldOf(target, value))) === 1;
}

/** What an unreviewed app may do (APP_REVIEW_UNREVIEWED): connect as before, or wait for an admin. */
export type UnreviewedMeans = 'allowed' | 'ask-admin';

/** Whether an app may connect now: allowed, blocked, or unreviewed while the school asks for a review. */
export type Admission = 'allowed' | 'blocked' | 'ask-admin';

/**
 * Whether `clientId` may connect: its standing, with an unreviewed app read as `unreviewed` says,
 * except the account pages and the integrations an operator created, which count as allowed.
 */
export async function admissionOf(
  redis: RedisClient,
  prefix: string,
  clientId: string,
  unreviewed: UnreviewedMeans,
): Promise<Admission> {
  if (clientId === ACCOUNT_CONSOLE_CLIENT_ID) return 'allowed';
  const { review } = await appStanding(redis, prefix, clientId);
  if (review !== 'unreviewed') return review;
  if (unreviewed === 'allowed') return 'allowed';
  const json = await redis.get(modelKey(prefix, 'Client', clientId));
  const stored = json ? readStoredClient(json) : UNREADABLE;
  const metadata = stored === UNREADABLE ? {} : stored;
  const kind = clientKind({ clientId, metadata: () => metadata });
  return kind === 'integration' || kind === 'service' ? 'allowed' : 'ask-admin';
}
