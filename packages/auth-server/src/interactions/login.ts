/**
 * The sign-in page and its form (docs/decisions.md).
 *
 * `POST …/login` after the shared steps (router.ts): {@link LoginSteps.submit} is
 * `throttleLogin` → `checkPassword` → `completeLogin`. The throttle is login-guard.ts: a refused
 * address gets 429 with Retry-After, an account under attack a small delay, never a lockout. Every
 * failure gets the same generic error, whether or not the email belongs to an account.
 */
import { INTERACTION_PATH } from '@school/shared';
import type { LoginForm } from './forms.js';
import { sendPage } from './html.js';
import {
  actor,
  clientView,
  finishInteraction,
  redirectOrigin,
  type Step,
  type StepContext,
  type StepDeps,
} from './steps.js';
import { loginPage } from './views.js';

const GENERIC_LOGIN_ERROR = 'The email or password is not right.';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The sign-in steps: `show` answers `GET …/<uid>` while oidc-provider asks for a login; `submit`
 * follows the checked form of `POST …/login`.
 */
export function loginSteps({ provider, accounts, audit, loginGuard, csrf }: StepDeps): {
  show: Step;
  submit: Array<Step<{ form: LoginForm; accountId: string }>>;
} {
  /** The form; after a failed submission with `error` and the email as given, for another try. */
  const sendForm = async (ctx: StepContext<{ form?: LoginForm }>, status = 200, error?: string) => {
    const details = ctx.state.interaction;
    sendPage(
      ctx,
      status,
      loginPage({
        action: `${INTERACTION_PATH}/${details.uid}/login`,
        csrf: csrf.issue(details.uid),
        client: await clientView(provider, details),
        email: ctx.state.form?.email,
        error,
      }),
      redirectOrigin(details),
    );
  };

  /**
   * The account `email` names, for its audit events: the audit log stores every event about an
   * existing account (audit/flood-guard.ts). Looked up for every failure, so no answer or timing
   * depends on whether the account exists.
   */
  const named = async (email: string): Promise<{ accountId?: string }> => {
    const accountId = email ? await accounts.idOf(email) : undefined;
    return accountId ? { accountId } : {};
  };

  return {
    show: async function showLogin(ctx) {
      await sendForm(ctx);
    },
    submit: [
      async function throttleLogin(ctx, next) {
        const { email } = ctx.state.form;
        const verdict = await loginGuard.before(email, ctx.ip);
        if (verdict.refusedForSeconds > 0) {
          // This address, or this email from this address, has failed too often. The same answer
          // for every email, real or not: the refusal reveals nothing about accounts.
          const wait = verdict.refusedForSeconds;
          ctx.set('Retry-After', String(wait));
          void audit.record('login_locked', { ...actor(ctx), ...(await named(email)), details: { email } });
          const minutes = Math.ceil(wait / 60);
          return sendForm(
            ctx,
            429,
            `Too many failed sign-ins from this network. Try again in ${minutes} minute(s).`,
          );
        }
        // An account under attack from elsewhere: a small delay for every attempt, never a refusal.
        if (verdict.delayMs) await sleep(verdict.delayMs);
        await next();
      },

      async function checkPassword(ctx, next) {
        const { email, password } = ctx.state.form;
        const accountId = email && password ? await accounts.authenticate(email, password) : undefined;
        if (accountId) {
          ctx.state.accountId = accountId;
          return next();
        }
        const account = await named(email);
        void audit.record('login_failed', { ...actor(ctx), ...account, details: { email } });
        const { delayMs, attack } = await loginGuard.failed(email, ctx.ip);
        if (attack)
          void audit.record('login_attack_suspected', {
            ...actor(ctx),
            ...account,
            details: { email, ...attack },
          });
        if (delayMs) await sleep(delayMs);
        return sendForm(ctx, 401, GENERIC_LOGIN_ERROR);
      },

      async function completeLogin(ctx) {
        const { accountId } = ctx.state;
        await loginGuard.succeeded(ctx.state.form.email, ctx.ip);
        void audit.record('login_succeeded', { ...actor(ctx), accountId });
        await finishInteraction(provider, ctx, { login: { accountId } }, false);
      },
    ],
  };
}
