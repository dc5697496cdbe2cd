/**
 * App reviews, for the school's admins (require-admin.ts): the requests waiting for a review
 * (APP_REVIEW_UNREVIEWED=ask-admin), the apps and domains the school allowed or blocked, and one form
 * that reviews an app by client id or a domain's metadata-document apps at once. The operation is
 * storage/app-review-actions.ts, shared with `school-auth apps allow|block|unreview`, audited with the
 * acting admin. A review that is done redirects (303) back to the page, which says what is now so; a
 * refused one answers the page with the problem and what was typed.
 */
import { z } from 'zod';
import { sendPage } from '../pages/html.js';
import { reviewApp, ReviewRefused, type ReviewDeps } from '../storage/app-review-actions.js';
import { listReviewRequests } from '../storage/app-review-requests.js';
import { listReviews, reviewOf, type UnreviewedMeans } from '../storage/app-reviews.js';
import { appReviewsPage, REVIEW_ACTION, type ReviewNotice } from './app-reviews-view.js';
import type { AccountContext, AccountStep } from './signed-in.js';

/** The review form. */
export const reviewForm = z.object({
  csrf: z.string(),
  target: z.enum(['client', 'domain']),
  value: z.string().max(2000),
  review: z.enum(['allowed', 'blocked', 'unreviewed']),
});

/** What the page says once the review is read back (so a crafted link cannot claim what is not so). */
async function doneNotice(deps: ReviewDeps, query: Record<string, unknown>): Promise<string | undefined> {
  const asked = reviewForm.omit({ csrf: true }).safeParse(query);
  if (!asked.success) return undefined;
  const { target, value, review } = asked.data;
  const now = await reviewOf(deps.redis, deps.prefix, target, value);
  const what = target === 'domain' ? `Every app of ${value}` : (now?.name ?? value);
  if (review === 'unreviewed') return now ? undefined : `${what}: no review now.`;
  if (now?.review !== review) return undefined;
  return review === 'blocked'
    ? `${what} is blocked: its access ended for every account, and it cannot connect until it is allowed.`
    : `${what} is allowed.`;
}

/** The page and its form. */
export function appReviewsSteps(deps: ReviewDeps & { unreviewed: UnreviewedMeans }): {
  show: AccountStep;
  review: AccountStep<{ form: z.infer<typeof reviewForm> }>;
} {
  const answer = async (ctx: AccountContext, status: number, notice?: ReviewNotice) => {
    const [requests, reviews] = await Promise.all([
      listReviewRequests(deps.redis, deps.prefix),
      listReviews(deps.redis, deps.prefix),
    ]);
    const page = appReviewsPage({ ...ctx.state, requests, reviews, unreviewed: deps.unreviewed, notice });
    sendPage(ctx, status, page);
  };
  return {
    show: async function showAppReviews(ctx) {
      const done = await doneNotice(deps, ctx.query);
      await answer(ctx, 200, done ? { done } : undefined);
    },
    review: async function reviewAppStep(ctx) {
      const { target, value, review } = ctx.state.form;
      const { account } = ctx.state;
      try {
        const reviewed = await reviewApp(
          deps,
          { target, value, review },
          { by: account.email, accountId: account._id, requestId: ctx.state.requestId, ip: ctx.ip },
        );
        const query = new URLSearchParams({ target, value: reviewed.value, review });
        ctx.status = 303;
        ctx.redirect(`${REVIEW_ACTION}?${query.toString()}`);
      } catch (err) {
        if (err instanceof ReviewRefused)
          return answer(ctx, 400, { error: err.message, typed: { target, value } });
        throw err;
      }
    },
  };
}
