/**
 * Your account, for everyone signed in: passkeys (add, list, remove), recovery codes, change
 * password and sign out everywhere.
 *
 * Adding or removing a passkey and making recovery codes first need a fresh proof of the strongest
 * factor the account has (passkeys/factor-proof.ts; the confirm forms are your-account-proof.ts):
 * without it the form is refused and the page asks for the proof. Adding a passkey answers the
 * WebAuthn options the page was rendered with (their challenge bound to this login session, single
 * use; passkeys/passkey-ceremonies.ts), and records the factor shown before it: one added after only a
 * password is told of on this page in every other session of the account for two weeks (a password
 * sign-in to the account pages lands here while there is one). Removing a
 * passkey ends the account's other sessions (those it may have signed in), and is refused when it is
 * the last way in (passkeys/ways-in.ts). Recovery codes need a passkey, at most
 * RECOVERY_CODE_SETS_PER_HOUR sets an hour (passkeys/recovery-code-budget.ts); they are made on a POST,
 * kept for this session for one look, and shown once on the page it redirects to. Each is audited.
 *
 * Changing the password needs the current one, checked like a sign-in: the login guard
 * (accounts/login-guard.ts) counts a wrong one as a failed sign-in of this account from this
 * address, refuses the pair once it has failed too often, and holds failed answers back, so this form
 * is no faster a way to guess a password than the sign-in page. The new password follows the one
 * rule (accounts/password-rule.ts); every other session of the account then ends. Sign out everywhere
 * ends every session, this one too. The apps' grants stay: the pages say so. Both list the account's
 * passkeys, each with its Remove link: a passkey outlives a password change.
 */
import { z } from 'zod';
import type { Provider } from 'oidc-provider';
import {
  changePassword,
  PasswordRefused,
  signOutEverywhere,
  type AccountAdminDeps,
} from '../accounts/account-admin.js';
import { displayTextProblem, minutesText } from '@school/shared';
import { scriptNonce, sendPage } from '../pages/html.js';
import { FactorProofs, factorNeeded, type SessionSignIn } from '../passkeys/factor-proof.js';
import { PasskeyRefused } from '../passkeys/passkey-ceremonies.js';
import type { Passkeys } from '../passkeys/passkeys.js';
import { RecoveryCodeBudget } from '../passkeys/recovery-code-budget.js';
import { lockOutProblem, waysIn } from '../passkeys/ways-in.js';
import { endAccountSessions } from '../storage/account-sessions.js';
import { proofSteps, type ProofSteps } from './your-account-proof.js';
import { PASSKEY_NAME_MAX } from './passkeys-view.js';
import { accountPath, afterSignIn, type AccountContext, type AccountStep } from './signed-in.js';
import {
  newRecoveryCodesConfirmPage,
  removePasskeyConfirmPage,
  signOutEverywhereConfirmPage,
  signedOutEverywherePage,
  yourAccountPage,
} from './your-account-view.js';

/** The change-password form. */
export const changePasswordForm = z.object({
  csrf: z.string(),
  current: z.string().max(1024),
  password: z.string().max(4096),
  confirm: z.string().max(4096),
});
type ChangePasswordForm = z.infer<typeof changePasswordForm>;

/** The sign-out-everywhere form: the CSRF token only. */
export const signOutEverywhereForm = z.object({ csrf: z.string() });

/** The add-a-passkey form: its name and the WebAuthn answer (JSON) the page's script put in. */
export const addPasskeyForm = z.object({
  csrf: z.string(),
  name: z.string().max(1000),
  response: z.string().max(12_000),
});
type AddPasskeyForm = z.infer<typeof addPasskeyForm>;

/** The Remove form of one passkey. */
export const removePasskeyForm = z.object({ csrf: z.string(), passkey_id: z.string().min(1).max(1000) });
type RemovePasskeyForm = z.infer<typeof removePasskeyForm>;

/** The make-new-recovery-codes form: the CSRF token only. */
export const recoveryCodesForm = z.object({ csrf: z.string() });

const DONE: Record<string, string> = {
  password:
    'Your password is changed. Everywhere else you were signed in has been signed out. Your passkeys below still sign you in: remove any you do not know.',
  'passkey-added': 'Your passkey is added. You can sign in with it now.',
  'passkey-removed':
    'The passkey is removed. It no longer signs you in, and everywhere else you were signed in has been signed out.',
  confirmed:
    'It is you. For the next few minutes you can add or remove passkeys and make recovery codes here.',
};

/** What the page says when a change needs a fresh proof first. */
export const CONFIRM_FIRST =
  'Confirm it is you first (below, under Passkeys): passkeys and recovery codes only change right after that.';

/** What the page says of a passkey answer it could not use. */
const PASSKEY_NOT_ADDED = 'The passkey was not added: the browser’s answer could not be verified. Try again.';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What Your account needs. */
export type YourAccountDeps = AccountAdminDeps & { passkeys: Passkeys; provider: Provider; baseUrl: string };

/** The page, and the steps of its forms. */
export function yourAccountSteps(deps: YourAccountDeps): {
  show: AccountStep;
  changePassword: AccountStep<{ form: ChangePasswordForm }>[];
  confirmSignOutEverywhere: AccountStep;
  confirmRemovePasskey: AccountStep;
  confirmNewRecoveryCodes: AccountStep;
  signOutEverywhere: AccountStep<{ form: z.infer<typeof signOutEverywhereForm> }>;
  addPasskey: AccountStep<{ form: AddPasskeyForm }>;
  removePasskey: AccountStep<{ form: RemovePasskeyForm }>;
  newRecoveryCodes: AccountStep[];
  requireProof: AccountStep;
  proof: ProofSteps;
  afterSignIn: AccountStep;
} {
  const { accounts, loginGuard, audit, passkeys, provider, redis, prefix } = deps;
  const proofs = new FactorProofs(redis, prefix);
  const budget = new RecoveryCodeBudget(redis, prefix);
  /** Codes just made, kept for the one page the POST redirects to. */
  const codesKey = (sessionUid: string) => `${prefix}new-recovery-codes:${sessionUid}`;
  /** How this login session signed in (oidc-provider's session). */
  const signInOf = async (ctx: AccountContext): Promise<SessionSignIn> => {
    const session = await provider.Session.get(ctx);
    return { amr: session.amr, loginTs: session.loginTs };
  };
  /** The page, with a fresh registration challenge; `extra` for what one answer alone shows. */
  const answer = async (
    ctx: AccountContext,
    status: number,
    error?: string,
    done?: string,
    extra: { newRecoveryCodes?: string[]; passkeyName?: string } = {},
  ) => {
    const { account, sessionUid } = ctx.state;
    const nonce = scriptNonce();
    const [list, recoveryCodesLeft, signIn, addedElsewhere] = await Promise.all([
      passkeys.store.list(account._id),
      passkeys.recoveryCodes.unused(account._id),
      signInOf(ctx),
      passkeys.store.addedAfterPassword(account._id, sessionUid),
    ]);
    const needed = factorNeeded(list.length);
    const proven = await proofs.satisfies(sessionUid, account._id, signIn, needed);
    const [registrationOptions, confirmOptions] = await Promise.all([
      proven ? passkeys.ceremonies.registrationOptions(account, sessionUid) : undefined,
      !proven && needed === 'passkey' && passkeys.ceremonies.available
        ? passkeys.ceremonies.signInOptions(proofChallengeOwner(sessionUid))
        : undefined,
    ]);
    sendPage(
      ctx,
      status,
      yourAccountPage({
        account,
        csrf: ctx.state.csrf,
        error,
        done,
        passkeys: {
          available: passkeys.ceremonies.available,
          passkeys: list,
          proof: proven
            ? { proven: true }
            : { proven: false, needed, options: confirmOptions && JSON.stringify(confirmOptions) },
          registrationOptions: registrationOptions ? JSON.stringify(registrationOptions) : '',
          addedElsewhere,
          nonce,
          recoveryCodesLeft,
          ...extra,
        },
      }),
      [],
      passkeys.ceremonies.available ? nonce : undefined, // no passkey section: no script at all
    );
  };
  const audited = (ctx: AccountContext) => ({
    requestId: ctx.state.requestId,
    ip: ctx.ip,
    accountId: ctx.state.account._id,
  });
  const actorOf = (ctx: AccountContext) => ({
    actor: ctx.state.account._id,
    requestId: ctx.state.requestId,
    ip: ctx.ip,
  });

  /** Waits for and counts a typed password like a sign-in (accounts/login-guard.ts); 429 when refused. */
  const throttlePasswordCheck: AccountStep = async function throttlePasswordCheck(ctx, next) {
    const verdict = await loginGuard.before(ctx.state.account.email, ctx.ip);
    if (verdict.refusedForSeconds > 0) {
      ctx.set('Retry-After', String(verdict.refusedForSeconds));
      const wait = minutesText(verdict.refusedForSeconds);
      return answer(ctx, 429, `Too many wrong passwords for your account. Try again in ${wait}.`);
    }
    if (verdict.delayMs) await sleep(verdict.delayMs);
    await next();
  };

  /**
   * Checks `typed` as the account's password: right, the guard forgets the pair's count; wrong, it is
   * counted and audited as a failed sign-in (`form` says which form) and the answer held back.
   */
  const passwordRight = async (ctx: AccountContext, typed: string, form: string): Promise<boolean> => {
    const { account, requestId } = ctx.state;
    if (await accounts.checkPassword(account._id, typed)) {
      await loginGuard.succeeded(account.email, ctx.ip);
      return true;
    }
    void audit.record('login_failed', {
      requestId,
      ip: ctx.ip,
      accountId: account._id,
      details: { email: account.email, form },
    });
    const { delayMs, attack } = await loginGuard.failed(account.email, ctx.ip);
    if (attack)
      void audit.record('login_attack_suspected', {
        requestId,
        ip: ctx.ip,
        accountId: account._id,
        details: { email: account.email, ...attack },
      });
    if (delayMs) await sleep(delayMs);
    return false;
  };

  /** The factor this session showed, when it is as strong as the account's strongest; else undefined. */
  const freshProof = async (ctx: AccountContext) => {
    const { account, sessionUid } = ctx.state;
    const [count, signIn] = await Promise.all([passkeys.store.count(account._id), signInOf(ctx)]);
    const needed = factorNeeded(count);
    return (await proofs.satisfies(sessionUid, account._id, signIn, needed))
      ? ((await proofs.shown(sessionUid, account._id, signIn)) ?? needed)
      : undefined;
  };

  const requireProof: AccountStep = async function requireFreshProof(ctx, next) {
    if (!(await freshProof(ctx))) return answer(ctx, 403, CONFIRM_FIRST);
    await next();
  };

  return {
    requireProof,
    afterSignIn: async function landAfterSignIn(ctx) {
      // Someone who signs in with the password lands on the notice of a passkey added elsewhere after
      // only the password: the owner, who has none of their own, learns of it at once.
      const { account, sessionUid } = ctx.state;
      const byPassword = (await signInOf(ctx)).amr?.includes('pwd') ?? false;
      const told =
        byPassword && (await passkeys.store.addedAfterPassword(account._id, sessionUid)).length > 0;
      ctx.status = 303;
      // Otherwise on to the page the sign-in was started from (an account page, device pairing), else
      // Connected apps.
      ctx.redirect(told ? accountPath('account') : afterSignIn(ctx.query.state, deps.baseUrl));
    },
    proof: proofSteps({
      ...deps,
      proofs,
      challengeOwner: proofChallengeOwner,
      throttlePasswordCheck,
      passwordRight,
      answer: (ctx, status, error) => answer(ctx, status, error),
    }),
    confirmSignOutEverywhere: async function confirmSignOutEverywhere(ctx) {
      const list = await passkeys.store.list(ctx.state.account._id);
      sendPage(ctx, 200, signOutEverywhereConfirmPage({ ...ctx.state, passkeys: list }));
    },
    confirmNewRecoveryCodes: async function confirmNewRecoveryCodes(ctx) {
      const left = await passkeys.recoveryCodes.unused(ctx.state.account._id);
      if (left === 0) {
        // Nothing would stop working: the page's own form makes them without asking.
        ctx.status = 303;
        ctx.redirect(accountPath('account'));
        return;
      }
      sendPage(ctx, 200, newRecoveryCodesConfirmPage({ ...ctx.state, left }));
    },
    confirmRemovePasskey: async function confirmRemovePasskey(ctx) {
      const id = typeof ctx.query.passkey_id === 'string' ? ctx.query.passkey_id : '';
      const passkey = (await passkeys.store.list(ctx.state.account._id)).find((p) => p.id === id);
      if (!passkey) return answer(ctx, 404, 'You have no such passkey any more.');
      sendPage(ctx, 200, removePasskeyConfirmPage({ ...ctx.state, passkey }));
    },
    show: async function showYourAccount(ctx) {
      const done = typeof ctx.query.done === 'string' ? DONE[ctx.query.done] : undefined;
      if (ctx.query.done === 'recovery-codes') {
        // The codes the POST made, shown this once.
        const kept = await redis.getdel(codesKey(ctx.state.sessionUid));
        if (kept)
          return answer(ctx, 200, undefined, undefined, { newRecoveryCodes: JSON.parse(kept) as string[] });
      }
      await answer(ctx, 200, undefined, done);
    },
    addPasskey: async function addPasskey(ctx) {
      const { account, sessionUid, form } = ctx.state;
      const name = form.name.trim();
      const problem =
        name.length > PASSKEY_NAME_MAX
          ? `is longer than ${PASSKEY_NAME_MAX} characters`
          : displayTextProblem(name);
      if (!name || problem)
        return answer(
          ctx,
          400,
          `Give the passkey a name${problem ? `: the name ${problem}` : ''}.`,
          undefined,
          {
            passkeyName: form.name,
          },
        );
      const proof = await freshProof(ctx);
      if (!proof) return answer(ctx, 403, CONFIRM_FIRST, undefined, { passkeyName: form.name });
      const before = (await passkeys.store.descriptors(account._id)).map((d) => d.id);
      try {
        await passkeys.ceremonies.register(account._id, sessionUid, form.response, name);
      } catch (err) {
        if (!(err instanceof PasskeyRefused)) throw err;
        void audit.record('passkey_refused', {
          ...audited(ctx),
          details: { ceremony: 'registration', reason: err.reason },
        });
        return answer(ctx, 400, PASSKEY_NOT_ADDED, undefined, { passkeyName: form.name });
      }
      await passkeys.store.recordAdded(account._id, before, { proof, sessionUid });
      void audit.record('passkey_registered', { ...audited(ctx), details: { name, proof } });
      ctx.status = 303;
      ctx.redirect(`${accountPath('account')}?done=passkey-added`);
    },
    removePasskey: async function removePasskey(ctx) {
      const { account, sessionId, form } = ctx.state;
      const problem = lockOutProblem(await waysIn(passkeys, accounts, account._id), 'one-passkey');
      if (problem) return answer(ctx, 409, problem);
      const removed = await passkeys.store.remove(account._id, form.passkey_id);
      if (removed === undefined) return answer(ctx, 404, 'You have no such passkey any more.');
      // Sessions it signed in end with it; this one stays.
      const sessionsEnded = await endAccountSessions(redis, prefix, account._id, sessionId);
      void audit.record('passkey_removed', { ...audited(ctx), details: { name: removed, sessionsEnded } });
      ctx.status = 303;
      ctx.redirect(`${accountPath('account')}?done=passkey-removed`);
    },
    newRecoveryCodes: [
      async function needPasskey(ctx, next) {
        if ((await passkeys.store.count(ctx.state.account._id)) === 0)
          return answer(ctx, 409, 'Recovery codes stand in for a lost passkey: add a passkey first.');
        await next();
      },
      requireProof,
      async function makeRecoveryCodes(ctx) {
        const { account, sessionUid } = ctx.state;
        const wait = await budget.take(account._id);
        if (wait > 0) {
          ctx.set('Retry-After', String(wait));
          return answer(
            ctx,
            429,
            `You made new recovery codes several times this hour. Try again in ${minutesText(wait)}.`,
          );
        }
        const codes = await passkeys.recoveryCodes.generate(account._id);
        await redis.set(codesKey(sessionUid), JSON.stringify(codes), 'EX', 5 * 60);
        void audit.record('recovery_codes_generated', { ...audited(ctx), details: { count: codes.length } });
        ctx.status = 303;
        ctx.redirect(`${accountPath('account')}?done=recovery-codes`);
      },
    ],
    changePassword: [
      throttlePasswordCheck,
      async function checkCurrentPassword(ctx, next) {
        if (await passwordRight(ctx, ctx.state.form.current, 'change_password')) {
          await next();
          return;
        }
        return answer(ctx, 401, 'Your current password is not right. Your password is unchanged.');
      },
      async function setNewPassword(ctx) {
        const { account, form, sessionId } = ctx.state;
        if (form.password !== form.confirm)
          return answer(ctx, 400, 'The two new passwords are not the same. Your password is unchanged.');
        if (form.password === form.current)
          return answer(ctx, 400, 'The new password is your current one. Choose another.');
        try {
          await changePassword(deps, account._id, form.password, sessionId, actorOf(ctx));
        } catch (err) {
          if (err instanceof PasswordRefused) return answer(ctx, 400, err.message);
          throw err;
        }
        ctx.status = 303;
        ctx.redirect(`${accountPath('account')}?done=password`);
      },
    ],
    signOutEverywhere: async function signOutEverywhereStep(ctx) {
      await signOutEverywhere(deps, ctx.state.account._id, actorOf(ctx));
      sendPage(ctx, 200, signedOutEverywherePage());
    },
  };
}

/** Whose WebAuthn challenge a proof on Your account answers: the login session, apart from sign-in pages' interactions. */
export const proofChallengeOwner = (sessionUid: string) => `account:${sessionUid}`;
