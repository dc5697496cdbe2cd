/**
 * The requests that admins review an app, made on the page an unreviewed app's authorization ends on
 * when APP_REVIEW_UNREVIEWED is `ask-admin` (interactions/app-review.ts). One entry per app in one
 * hash (`appReviewRequests`, redis-keys.ts): the app as it was shown (name, client id, kind, domain),
 * who asked and when. Asking again for the same app changes nothing (idempotent); another person
 * asking is added to the same entry.
 *
 * Who controls what: the account is the signed-in person's own; the app's id, name and kind come from
 * the client the provider resolved for this interaction, so an app exists for every entry, but anyone
 * can register an app (open registration, a metadata document on any host), so the counts are
 * bounded: at most {@link MAX_PENDING} apps waiting, {@link MAX_PER_ACCOUNT} of them asked by one
 * account, {@link MAX_ASKERS} people listed per app, the name cut to {@link NAME_MAX} characters. A
 * request over a bound is refused (the person is told to ask an admin directly) and nothing is
 * written. An entry goes when an admin allows or blocks the app (or its domain).
 */
import type { RedisClient } from '@school/shared';
import { clientIdHost, domainCovers } from '../clients/app-domain.js';
import { appReviewRequestsKey } from './redis-keys.js';

/** Apps waiting for a review at most. */
export const MAX_PENDING = 200;
/** Apps one account may be waiting on at most. */
export const MAX_PER_ACCOUNT = 10;
/** People listed on one request at most (later askers are counted, not listed). */
export const MAX_ASKERS = 20;
/** The longest name kept. */
const NAME_MAX = 200;

/** The app a request is about, as the page showed it. */
export interface RequestedApp {
  clientId: string;
  name?: string;
  /** clients/client-kind.ts's kind. */
  kind: string;
  /** A metadata-document client's host. */
  domain?: string;
}

/** One person's request. */
export interface Asker {
  accountId: string;
  email: string;
  /** Unix seconds. */
  at: number;
}

/** A pending request as stored and listed. */
export interface ReviewRequest extends RequestedApp {
  askers: Asker[];
  /** How many asked in all (more than listed once {@link MAX_ASKERS} is reached). */
  asked: number;
  /** When it was first asked, Unix seconds. */
  at: number;
}

/** What asking did. */
export type Asked = 'recorded' | 'already' | 'too_many';

function parse(json: string): ReviewRequest | undefined {
  try {
    return JSON.parse(json) as ReviewRequest;
  } catch {
    return undefined;
  }
}

/** Every pending request, oldest first. */
export async function listReviewRequests(redis: RedisClient, prefix: string): Promise<ReviewRequest[]> {
  const all = Object.values(await redis.hgetall(appReviewRequestsKey(prefix)))
    .map(parse)
    .filter((r) => r !== undefined);
  return all.sort((a, b) => a.at - b.at || a.clientId.localeCompare(b.clientId));
}

/** Records that `who` asks for `app` to be reviewed (see the module comment for the bounds). */
export async function requestReview(
  redis: RedisClient,
  prefix: string,
  app: RequestedApp,
  who: Omit<Asker, 'at'>,
  now = Math.floor(Date.now() / 1000),
): Promise<Asked> {
  const key = appReviewRequestsKey(prefix);
  const pending = await listReviewRequests(redis, prefix);
  const existing = pending.find((r) => r.clientId === app.clientId);
  if (existing?.askers.some((a) => a.accountId === who.accountId)) return 'already';
  const mine = pending.filter((r) => r.askers.some((a) => a.accountId === who.accountId)).length;
  if (mine >= MAX_PER_ACCOUNT || (!existing && pending.length >= MAX_PENDING)) return 'too_many';
  const asker = { ...who, at: now };
  const entry: ReviewRequest = existing
    ? {
        ...existing,
        askers: existing.askers.length < MAX_ASKERS ? [...existing.askers, asker] : existing.askers,
        asked: existing.asked + 1,
      }
    : {
        clientId: app.clientId,
        ...(app.name ? { name: app.name.slice(0, NAME_MAX) } : {}),
        kind: app.kind,
        ...(app.domain ? { domain: app.domain } : {}),
        askers: [asker],
        asked: 1,
        at: now,
      };
  await redis.hset(key, app.clientId, JSON.stringify(entry));
  return 'recorded';
}

/** Drops the requests a review of `target`/`value` answers (an app's, or every app's of a domain). */
export async function dropAnsweredRequests(
  redis: RedisClient,
  prefix: string,
  target: 'client' | 'domain',
  value: string,
): Promise<void> {
  const key = appReviewRequestsKey(prefix);
  if (target === 'client') {
    await redis.hdel(key, value);
    return;
  }
  const covered = (await redis.hkeys(key)).filter((id) => {
    const host = clientIdHost(id);
    return host !== undefined && domainCovers(value, host);
  });
  if (covered.length) await redis.hdel(key, ...covered);
}
