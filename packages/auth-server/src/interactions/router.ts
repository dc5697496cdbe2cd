/**
 * The login and consent pages under `/oauth/interaction/<uid>` (docs/decisions.md), wired from named steps
 * (steps.ts, login.ts, consent.ts): every route turns refusals into pages and is never cached
 * (`noStore`), loads the interaction bound to this browser's cookie that must match the uid in the
 * URL (`loadInteraction`), and every form is checked against its zod schema, its CSRF token and its
 * Origin (`checkForm`) and must answer the prompt oidc-provider is asking (`requirePrompt`) before it
 * acts. An expired or replayed interaction gets a clear page, never a redirect. Pages are
 * `Cache-Control: no-store`, unframeable and HTML-escaped; only the sign-in page runs a script (its
 * passkey form), our own, by nonce.
 */
import type Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { PAGE_ROUTERS } from '@school/shared';
import type { RedisClient } from '@school/shared';
import { pageRouter } from '../pages/page-router.js';
import type { AccessCalendar } from './access-duration.js';
import { appReviewSteps } from './app-review.js';
import type { UnreviewedMeans } from '../storage/app-reviews.js';
import type { CeilingDeps } from './ceilings.js';
import { consentSteps } from './consent.js';
import { CsrfTokens } from '../pages/csrf.js';
import { noStore } from '../pages/error-page.js';
import { allowForm, consentForm, loginForm, passkeyLoginForm, recoveryLoginForm } from './forms.js';
import { loginSteps, type LoginDeps } from './login.js';
import { checkForm, loadInteraction, requirePrompt, type InteractionState, type Step } from './steps.js';

/** What the interaction routes need. */
export interface InteractionDeps extends Omit<LoginDeps, 'csrf'>, Omit<CeilingDeps, 'accounts'> {
  /** The public origin, for the Origin check. */
  baseUrl: string;
  /** The key of the forms' CSRF tokens (pages/csrf.ts). */
  csrfSecret: string;
  /** What the consent page's "how long" choices end by (access-duration.ts). */
  calendar: AccessCalendar;
  /** Where the school's app reviews are read (interactions/app-review.ts). */
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** APP_REVIEW_UNREVIEWED. */
  unreviewed: UnreviewedMeans;
}

/** Builds the router for the interaction pages. */
export function interactionRouter(deps: InteractionDeps): Router<InteractionState> {
  const csrf = new CsrfTokens(deps.csrfSecret);
  const formCheck = { csrf, ownOrigin: new URL(deps.baseUrl).origin };
  const login = loginSteps({ ...deps, csrf });
  const consent = consentSteps({ ...deps, csrf });
  const { checkAppReview, requestAppReview } = appReviewSteps({ ...deps, csrf });
  // Every route checks the app's review right after loading its interaction (app-review.ts).
  const load = [loadInteraction(deps.provider), checkAppReview] as const;
  const forms = bodyParser({ enableTypes: ['form'], formLimit: '16kb', encoding: 'utf-8' });

  const showPage: Step = async function showPage(ctx, next) {
    const show = ctx.state.interaction.prompt.name === 'login' ? login.show : consent.show;
    await show(ctx, next);
  };

  const loadOnly = loadInteraction(deps.provider);
  const form = (schema: Parameters<typeof checkForm>[0]) => [forms, ...load, checkForm(schema, formCheck)];
  return pageRouter(
    PAGE_ROUTERS.interactions,
    {
      page: { read: [...load, showPage] },
      login: { form: [...form(loginForm), requirePrompt('login'), ...login.submit] },
      passkey: { form: [...form(passkeyLoginForm), requirePrompt('login'), ...login.passkey] },
      recovery: { form: [...form(recoveryLoginForm), requirePrompt('login'), ...login.recovery] },
      confirm: { form: [...form(allowForm), requirePrompt('consent'), consent.grant] },
      askAdmin: { form: [...form(allowForm), requirePrompt('consent'), consent.ask] },
      // Deny and asking for a review work for an app the school has not allowed: no review check.
      abort: { form: [forms, loadOnly, checkForm(consentForm, formCheck), consent.deny] },
      requestReview: {
        form: [
          forms,
          loadOnly,
          checkForm(consentForm, formCheck),
          requirePrompt('consent'),
          requestAppReview,
        ],
      },
      switchAccount: { form: [...form(consentForm), requirePrompt('consent'), consent.switchAccount] },
    },
    [noStore],
  );
}
