/**
 * The sign-in page and its three forms (docs/decisions.md): a passkey, the password, or a recovery
 * code.
 *
 * `POST …/login` after the shared steps (router.ts): {@link LoginSteps.submit} is
 * `throttleLogin` → `checkPassword` → `allowPassword` → `completeLogin`. The throttle is
 * accounts/login-guard.ts: a refused address gets 429 with Retry-After, an account under attack a small
 * delay, never a lockout. Every failure gets the same generic error, whether or not the email belongs
 * to an account. A right password of an account whose password sign-in is switched off
 * (passkeys/passkeys.ts) is refused and audited.
 *
 * `POST …/passkey`: `throttlePasskey` → `checkPasskey` → `completePasskeyLogin`; the WebAuthn answer
 * is checked against this interaction's single-use challenge (passkeys/passkey-ceremonies.ts). The
 * throttle is the same one, keyed by the email of the account whose passkey the answer names (a
 * malformed answer, or one naming no stored passkey, shares one key): every refused answer counts as
 * a failed sign-in of that account from that address. A disabled account signs in by none of the
 * three forms; its passkey is refused before its answer is verified. `POST …/recovery`:
 * `throttleLogin` → `checkRecoveryCode` → `completeRecoveryLogin`, a code working once.
 *
 * When the login prompt asks for a passkey (passkeys/passkey-for-writes.ts), the page offers the
 * passkey alone and the other two forms are refused.
 */
import { INTERACTION_PATH, minutesText } from '@school/shared';
import type { Passkeys } from '../passkeys/passkeys.js';
import { PasskeyRefused } from '../passkeys/passkey-ceremonies.js';
import { PASSKEY_REQUIRED } from '../passkeys/passkey-for-writes.js';
import { PASSKEY_AMR, PASSWORD_AMR, RECOVERY_CODE_AMR } from '../passkeys/sign-in-methods.js';
import type { LoginForm, PasskeyLoginForm, RecoveryLoginForm } from './forms.js';
import { scriptNonce, sendPage } from '../pages/html.js';
import { actor, clientView, finishInteraction, redirectOrigin } from './steps.js';
import type { Step, StepContext, StepDeps } from './steps.js';
import { loginPage } from './views.js';

const GENERIC_LOGIN_ERROR = 'The email or password is not right.';
const RECOVERY_ERROR = 'The email or recovery code is not right, or the code was used already.';
const PASSKEY_ERROR = 'That passkey could not sign you in. Try again, or use your password.';
const PASSWORD_OFF_ERROR =
  'Password sign-in is switched off for this account. Sign in with your passkey, or with a recovery code if you lost it.';
const PASSKEY_ONLY_ERROR = 'This request needs a passkey sign-in.';
const PASSKEY_ADDED_BY_PASSWORD = (day: string) =>
  `A passkey was added to this account on ${day} by someone who typed its password. If that was not you, ask your school’s admin to remove it and change your password.`;

/**
 * The sign-in throttle's key for a passkey answer that names no stored passkey (or is no answer):
 * not an email any account can have (emails have no spaces or parentheses).
 */
const NO_SUCH_PASSKEY = '(no such passkey)';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The passkey form's state: the form, the account its answer names (`claimed`, before verifying) and
 * the throttle's key for it, then the verified account and passkey.
 */
interface PasskeyState {
  form: PasskeyLoginForm;
  claimed?: { accountId: string; disabled: boolean };
  guardKey: string;
  accountId: string;
  passkeyName: string;
}

/** What the sign-in steps need beyond the shared steps' dependencies. */
export interface LoginDeps extends StepDeps {
  passkeys: Passkeys;
}

/** True when oidc-provider asks for the login prompt because only a passkey sign-in will do. */
function passkeyRequired(ctx: StepContext): boolean {
  return ctx.state.interaction.prompt.reasons.includes(PASSKEY_REQUIRED);
}

/**
 * The sign-in steps: `show` answers `GET …/<uid>` while oidc-provider asks for a login; `submit`
 * follows the checked form of `POST …/login`, `passkey` that of `…/passkey`, `recovery` that of
 * `…/recovery`.
 */
export function loginSteps({ provider, accounts, audit, loginGuard, csrf, passkeys }: LoginDeps): {
  show: Step;
  submit: Array<Step<{ form: LoginForm; accountId: string }>>;
  passkey: Array<Step<PasskeyState>>;
  recovery: Array<Step<{ form: RecoveryLoginForm; accountId: string }>>;
} {
  /**
   * The page, with a fresh passkey challenge; after a failed submission with `error` and the email as
   * given (in the recovery form when that was the one sent), for another try.
   */
  /**
   * Why a right password is refused. When the account's passkey came on the strength of its password
   * alone (recently), the owner meeting this refusal may not be the one who added it: say so, and
   * what to do, rather than only "sign in with your passkey" (docs/decisions.md).
   */
  const passwordOffMessage = async (accountId: string): Promise<string> => {
    const added = await passkeys.store.addedAfterPassword(accountId, '');
    const last = added.at(-1);
    return last
      ? `${PASSWORD_OFF_ERROR} ${PASSKEY_ADDED_BY_PASSWORD(last.createdAt.toISOString().slice(0, 10))}`
      : PASSWORD_OFF_ERROR;
  };

  const sendForm = async (
    ctx: StepContext<{ form?: Partial<LoginForm & RecoveryLoginForm> }>,
    status = 200,
    error?: string,
  ) => {
    const details = ctx.state.interaction;
    const nonce = scriptNonce();
    const options = await passkeys.ceremonies.signInOptions(details.uid);
    const fromRecovery = ctx.state.form?.code !== undefined;
    sendPage(
      ctx,
      status,
      loginPage({
        action: `${INTERACTION_PATH}/${details.uid}/login`,
        csrf: csrf.issue(details.uid),
        client: await clientView(provider, details),
        email: fromRecovery ? undefined : ctx.state.form?.email,
        recoveryEmail: fromRecovery ? (ctx.state.form?.email ?? '') : undefined,
        error,
        passkey: {
          action: `${INTERACTION_PATH}/${details.uid}/passkey`,
          recoveryAction: `${INTERACTION_PATH}/${details.uid}/recovery`,
          options: JSON.stringify(options),
          nonce,
          required: passkeyRequired(ctx),
          available: passkeys.ceremonies.available,
        },
      }),
      redirectOrigin(details),
      passkeys.ceremonies.available ? nonce : undefined, // no passkey form: no script at all
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

  /**
   * Takes an attempt for `email` (a throttle key: see the module comment) from the guard's allowances;
   * false after answering 429 when this address, or this email from it, has failed too often. The same
   * answer for every email, real or not: the refusal reveals nothing about accounts. An account under
   * attack from elsewhere only waits a small delay here, never a refusal.
   */
  const admitted = async (ctx: StepContext, email: string): Promise<boolean> => {
    const verdict = await loginGuard.before(email, ctx.ip);
    if (verdict.refusedForSeconds > 0) {
      const wait = verdict.refusedForSeconds;
      ctx.set('Retry-After', String(wait));
      void audit.record('login_locked', { ...actor(ctx), ...(await named(email)), details: { email } });
      // Which allowance refused, said for any email alike (real or not), so it tells nothing of accounts.
      const locked =
        verdict.refusedBy === 'account'
          ? `Too many failed sign-ins to this account from this network: this account is locked here for now. Try again in ${minutesText(wait)}; other accounts can still sign in.`
          : `Too many failed sign-ins from this network. Try again in ${minutesText(wait)}.`;
      await sendForm(ctx, 429, locked);
      return false;
    }
    if (verdict.delayMs) await sleep(verdict.delayMs);
    return true;
  };

  const throttleLogin: Step<{ form: { email: string } }> = async function throttleLogin(ctx, next) {
    if (passkeyRequired(ctx)) return sendForm(ctx, 403, PASSKEY_ONLY_ERROR);
    if (await admitted(ctx, ctx.state.form.email)) await next();
  };

  /**
   * Counts a failed attempt for `email` (a throttle key) like every failed sign-in, reporting an
   * attack on `account` when this failure crosses the account's count; returns after the guard's delay.
   */
  const countFailure = async (ctx: StepContext, email: string, account: { accountId?: string }) => {
    const { delayMs, attack } = await loginGuard.failed(email, ctx.ip);
    if (attack)
      void audit.record('login_attack_suspected', {
        ...actor(ctx),
        ...account,
        details: { email, ...attack },
      });
    if (delayMs) await sleep(delayMs);
  };

  /** Counts a failed password or recovery code like every failed sign-in, then answers `message`. */
  const failed = async (ctx: StepContext<{ form: { email: string } }>, form: string, message: string) => {
    const { email } = ctx.state.form;
    const account = await named(email);
    void audit.record('login_failed', { ...actor(ctx), ...account, details: { email, form } });
    await countFailure(ctx, email, account);
    return sendForm(ctx, 401, message);
  };

  return {
    show: async function showLogin(ctx) {
      await sendForm(ctx);
    },
    submit: [
      throttleLogin,
      async function checkPassword(ctx, next) {
        const { email, password } = ctx.state.form;
        const accountId = email && password ? await accounts.authenticate(email, password) : undefined;
        if (!accountId) return failed(ctx, 'password', GENERIC_LOGIN_ERROR);
        ctx.state.accountId = accountId;
        await next();
        return;
      },
      async function allowPassword(ctx, next) {
        const { accountId } = ctx.state;
        if (await passkeys.passwordAllowed(accountId)) {
          await next();
          return;
        }
        void audit.record('password_sign_in_refused', { ...actor(ctx), accountId });
        return sendForm(ctx, 403, await passwordOffMessage(accountId));
      },
      async function completeLogin(ctx) {
        const { accountId } = ctx.state;
        await loginGuard.succeeded(ctx.state.form.email, ctx.ip);
        void audit.record('login_succeeded', { ...actor(ctx), accountId, details: { method: 'password' } });
        await finishInteraction(provider, ctx, { login: { accountId, amr: PASSWORD_AMR } }, false);
      },
    ],
    passkey: [
      async function throttlePasskey(ctx, next) {
        const accountId = await passkeys.ceremonies.claimedAccount(ctx.state.form.response);
        const profile = accountId ? await accounts.profile(accountId) : undefined;
        if (profile) ctx.state.claimed = { accountId: profile._id, disabled: profile.disabled === true };
        ctx.state.guardKey = profile?.email ?? NO_SUCH_PASSKEY;
        if (await admitted(ctx, ctx.state.guardKey)) await next();
      },
      async function checkPasskey(ctx, next) {
        const { claimed, guardKey } = ctx.state;
        try {
          // A disabled or removed account's passkeys sign nobody in (accounts/account-status.ts):
          // refused before the answer is verified or the passkey's use recorded, and after, for an
          // account disabled meanwhile.
          if (claimed?.disabled) throw new PasskeyRefused('account_disabled');
          const signIn = await passkeys.ceremonies.signIn(ctx.state.interaction.uid, ctx.state.form.response);
          if (!(await accounts.canSignIn(signIn.accountId))) throw new PasskeyRefused('account_disabled');
          ctx.state.accountId = signIn.accountId;
          ctx.state.passkeyName = signIn.passkeyName;
        } catch (err) {
          if (!(err instanceof PasskeyRefused)) throw err;
          const account = claimed ? { accountId: claimed.accountId } : {};
          void audit.record('passkey_refused', {
            ...actor(ctx),
            ...account,
            details: { reason: err.reason },
          });
          await countFailure(ctx, guardKey, account);
          return sendForm(ctx, 401, PASSKEY_ERROR);
        }
        await next();
      },
      async function completePasskeyLogin(ctx) {
        const { accountId, passkeyName } = ctx.state;
        await loginGuard.succeeded(ctx.state.guardKey, ctx.ip);
        void audit.record('login_succeeded', {
          ...actor(ctx),
          accountId,
          details: { method: 'passkey', passkey: passkeyName },
        });
        await finishInteraction(provider, ctx, { login: { accountId, amr: PASSKEY_AMR } }, false);
      },
    ],
    recovery: [
      throttleLogin,
      async function checkRecoveryCode(ctx, next) {
        const { email, code } = ctx.state.form;
        const accountId = email ? await accounts.idOf(email) : undefined;
        // A disabled account's codes are not spent: they work again once it is enabled.
        const allowed = accountId !== undefined && (await accounts.canSignIn(accountId));
        const used = await passkeys.recoveryCodes.use(allowed ? accountId : undefined, code);
        if (!used || !allowed) return failed(ctx, 'recovery_code', RECOVERY_ERROR);
        ctx.state.accountId = accountId;
        await next();
      },
      async function completeRecoveryLogin(ctx) {
        const { accountId } = ctx.state;
        await loginGuard.succeeded(ctx.state.form.email, ctx.ip);
        const left = await passkeys.recoveryCodes.unused(accountId);
        void audit.record('recovery_code_used', { ...actor(ctx), accountId, details: { codes_left: left } });
        void audit.record('login_succeeded', {
          ...actor(ctx),
          accountId,
          details: { method: 'recovery_code' },
        });
        await finishInteraction(provider, ctx, { login: { accountId, amr: RECOVERY_CODE_AMR } }, false);
      },
    ],
  };
}
