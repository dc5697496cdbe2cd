/**
 * The school's reviews of apps (storage/app-reviews.ts) on the sign-in and consent pages:
 *
 * - `checkAppReview`, after `loadInteraction` on the page and on every form: a blocked app (blocked
 *   while its page was open) ends on the school's page (403 `app_blocked`), never back at the app; an
 *   app waiting for a review (APP_REVIEW_UNREVIEWED=ask-admin) is signed in as usual, then shown the
 *   review page instead of consent, and its Allow is refused the same way;
 * - `requestAppReview` (`POST …/request-review`): records who asked for which app
 *   (storage/app-review-requests.ts, bounded), audits it, and ends the authorization with
 *   `access_denied` and an `error_description` saying a review was requested, so the app does not
 *   wait. When the bounds refuse it, the page says so and nothing is sent to the app.
 */
import { INTERACTION_PATH } from '@school/shared';
import type { AccountStore } from '../accounts/account-store.js';
import { clientIdHost } from '../clients/app-domain.js';
import { AppBlocked, InteractionGone } from '../pages/error-page.js';
import { sendPage } from '../pages/html.js';
import { requestReview } from '../storage/app-review-requests.js';
import { admissionOf, type UnreviewedMeans } from '../storage/app-reviews.js';
import { reviewFirstPage } from './app-review-view.js';
import { actor, clientView, finishInteraction, redirectOrigin } from './steps.js';
import type { Step, StepContext, StepDeps } from './steps.js';
import type { RedisClient } from '@school/shared';

/** What the review steps read. */
export interface AppReviewDeps extends Pick<StepDeps, 'provider' | 'audit' | 'csrf'> {
  accounts: AccountStore;
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** APP_REVIEW_UNREVIEWED. */
  unreviewed: UnreviewedMeans;
}

/** What the app is told when a review was requested. */
export const REVIEW_REQUESTED =
  'The school reviews new apps first: a review of this app was requested from the school’s admins. Try again once they allow it.';

/** The review steps (see the module comment). */
export function appReviewSteps(deps: AppReviewDeps): { checkAppReview: Step; requestAppReview: Step } {
  const { provider, csrf } = deps;

  async function showReviewFirst(ctx: StepContext, status: number, tooMany = false): Promise<void> {
    const details = ctx.state.interaction;
    const uid = details.uid;
    sendPage(
      ctx,
      status,
      reviewFirstPage({
        client: await clientView(provider, details),
        requestAction: `${INTERACTION_PATH}/${uid}/request-review`,
        abortAction: `${INTERACTION_PATH}/${uid}/abort`,
        csrf: csrf.issue(uid),
        tooMany,
      }),
      redirectOrigin(details), // the redirect chain after "Ask" ends at the app (form-action)
    );
  }

  const admission = (ctx: StepContext) =>
    admissionOf(deps.redis, deps.prefix, String(ctx.state.interaction.params.client_id), deps.unreviewed);

  return {
    checkAppReview: async function checkAppReview(ctx, next) {
      const decided = await admission(ctx);
      if (decided === 'blocked') throw new AppBlocked();
      // Waiting for a review: sign in as usual (a request names who asked), then this page, not consent.
      if (decided === 'ask-admin' && ctx.state.interaction.prompt.name === 'consent')
        return showReviewFirst(ctx, 200);
      await next();
    },

    requestAppReview: async function requestAppReview(ctx) {
      const details = ctx.state.interaction;
      const accountId = details.session?.accountId;
      const profile = accountId ? await deps.accounts.profile(accountId) : undefined;
      if (!accountId || !profile) throw new InteractionGone();
      const decided = await admission(ctx);
      if (decided === 'blocked') throw new AppBlocked();
      if (decided === 'allowed') {
        // Reviewed meanwhile: back to the page, which is now the consent page.
        ctx.status = 303;
        ctx.redirect(`${INTERACTION_PATH}/${details.uid}`);
        return;
      }
      const client = await clientView(provider, details);
      const domain = clientIdHost(client.clientId);
      const app = {
        clientId: client.clientId,
        name: client.name,
        kind: client.kind,
        ...(domain ? { domain } : {}),
      };
      const asked = await requestReview(deps.redis, deps.prefix, app, { accountId, email: profile.email });
      if (asked === 'too_many') return showReviewFirst(ctx, 429, true);
      if (asked === 'recorded')
        void deps.audit.record('app_review_requested', { ...actor(ctx), accountId, details: { ...app } });
      await finishInteraction(
        provider,
        ctx,
        { error: 'access_denied', error_description: REVIEW_REQUESTED.replace('’', "'") },
        false,
      );
    },
  };
}
