/**
 * Reviewing an app, as the admins' App reviews page (account-pages/app-reviews.ts) and
 * `school-auth apps allow|block|unreview` both do it: the target read and checked (a client the school
 * stores, or a metadata-document URL, or a domain: clients/app-domain.ts), the review written or
 * removed (app-reviews.ts: a block ends the app's grants), the pending requests it answers dropped,
 * and an `app_reviewed` audit event naming who did it and what ended.
 */
import { REGISTRATION_CAPS, type RedisClient } from '@school/shared';
import type { AuditEvent, AuditLog } from '../audit/audit-log.js';
import { reviewDomain } from '../clients/app-domain.js';
import { isCimdClientId } from '../clients/client-id-url.js';
import { ACCOUNT_CONSOLE_CLIENT_ID, clientKind } from '../clients/client-kind.js';
import { dropAnsweredRequests } from './app-review-requests.js';
import { clearReview, setReview, type Review, type ReviewTarget } from './app-reviews.js';
import { readStoredClient, UNREADABLE } from './client-listing.js';
import type { EndedGrants } from './client-removal.js';
import { modelKey } from './redis-keys.js';

/** What reviewing needs. */
export interface ReviewDeps {
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  audit: AuditLog;
}

/** A review asked for: `unreviewed` removes the target's review. */
export interface ReviewAsked {
  target: ReviewTarget;
  /** The client id or the domain, as typed. */
  value: string;
  review: Review | 'unreviewed';
}

/** Who reviewed: the admin (email and account id) or the operator, and the request. */
export interface Reviewer extends Pick<AuditEvent, 'requestId' | 'ip' | 'accountId'> {
  by: string;
}

/** A review that cannot be made, in words for the page and the CLI. */
export class ReviewRefused extends Error {}

/** What reviewing did. */
export interface Reviewed extends EndedGrants {
  target: ReviewTarget;
  /** The client id or the domain, as stored. */
  value: string;
  review: Review | 'unreviewed';
  /** False when `unreviewed` found no review to remove. */
  changed: boolean;
}

/** The target as stored, and the app's name; {@link ReviewRefused} when it cannot be reviewed. */
async function readTarget(deps: ReviewDeps, asked: ReviewAsked): Promise<{ value: string; name?: string }> {
  const typed = asked.value.trim();
  if (asked.target === 'domain') {
    const domain = reviewDomain(typed);
    if (domain instanceof Error) throw new ReviewRefused(domain.message);
    return { value: domain };
  }
  if (!typed || typed.length > REGISTRATION_CAPS.string)
    throw new ReviewRefused('name an app by its client id');
  if (typed === ACCOUNT_CONSOLE_CLIENT_ID) throw new ReviewRefused('the account pages cannot be blocked');
  const json = await deps.redis.get(modelKey(deps.prefix, 'Client', typed));
  const stored = json ? readStoredClient(json) : undefined;
  if (!stored && !isCimdClientId(typed))
    throw new ReviewRefused(`There is no app with the client id ${typed}.`);
  const metadata: Record<string, unknown> = stored && stored !== UNREADABLE ? stored : {};
  if (clientKind({ clientId: typed, metadata: () => metadata }) === 'service')
    throw new ReviewRefused(`${typed} is a service that checks tokens, not an app people allow.`);
  return {
    value: typed,
    ...(typeof metadata.client_name === 'string' ? { name: metadata.client_name } : {}),
  };
}

/** Reviews an app or a domain (see the module comment). */
export async function reviewApp(deps: ReviewDeps, asked: ReviewAsked, who: Reviewer): Promise<Reviewed> {
  const { value, name } = await readTarget(deps, asked);
  const { redis, prefix } = deps;
  let ended: EndedGrants = { grants: 0, tokens: 0 };
  let changed = true;
  if (asked.review === 'unreviewed') changed = await clearReview(redis, prefix, asked.target, value);
  else {
    ended = await setReview(redis, prefix, {
      target: asked.target,
      value,
      review: asked.review,
      name,
      by: who.by,
    });
    await dropAnsweredRequests(redis, prefix, asked.target, value);
  }
  if (changed)
    await deps.audit.record('app_reviewed', {
      requestId: who.requestId,
      ip: who.ip,
      accountId: who.accountId,
      ...(asked.target === 'client' ? { clientId: value } : {}),
      details: { target: asked.target, value, review: asked.review, by: who.by, ...ended },
    });
  return { target: asked.target, value, review: asked.review, changed, ...ended };
}
