/**
 * Your account's two "confirm it is you" forms (passkeys/factor-proof.ts), each redirecting back to
 * the page once done:
 *
 * - with a passkey: a WebAuthn assertion over a challenge bound to this login session
 *   (passkeys/passkey-ceremonies.ts `signIn`, single use), made with one of this account's passkeys;
 * - with the password typed again, for an account without a passkey only, counted like a sign-in
 *   (accounts/login-guard.ts) and refused when an admin switched the account's password sign-in off.
 *
 * Each proof is audited (`factor_confirmed`), so Activity shows who confirmed what before a passkey
 * was added.
 */
import { z } from 'zod';
import type { AccountStore } from '../accounts/account-store.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { FactorProofs } from '../passkeys/factor-proof.js';
import { PasskeyRefused } from '../passkeys/passkey-ceremonies.js';
import type { Passkeys } from '../passkeys/passkeys.js';
import { accountPath, type AccountContext, type AccountStep } from './signed-in.js';

/** The confirm-with-a-passkey form: the WebAuthn answer (JSON) the page's script put in. */
export const confirmPasskeyForm = z.object({ csrf: z.string(), response: z.string().max(12_000) });

/** The confirm-with-the-password form. */
export const confirmPasswordForm = z.object({ csrf: z.string(), password: z.string().max(1024) });

/** What the page says when a passkey could not confirm. */
const PASSKEY_NOT_CONFIRMED = 'Your passkey could not confirm it is you. Try again.';

/** What the proof forms need from Your account. */
export interface ProofDeps {
  accounts: AccountStore;
  audit: AuditLog;
  passkeys: Passkeys;
  proofs: FactorProofs;
  challengeOwner: (sessionUid: string) => string;
  throttlePasswordCheck: AccountStep;
  passwordRight: (ctx: AccountContext, typed: string, form: string) => Promise<boolean>;
  answer: (ctx: AccountContext, status: number, error: string) => Promise<void>;
}

/** The steps of the two forms. */
export interface ProofSteps {
  withPasskey: AccountStep<{ form: z.infer<typeof confirmPasskeyForm> }>;
  withPassword: AccountStep<{ form: z.infer<typeof confirmPasswordForm> }>[];
}

/** Builds {@link ProofSteps}. */
export function proofSteps(deps: ProofDeps): ProofSteps {
  const { accounts, audit, passkeys, proofs, answer } = deps;
  const audited = (ctx: AccountContext) => ({
    requestId: ctx.state.requestId,
    ip: ctx.ip,
    accountId: ctx.state.account._id,
  });
  const confirmed = (ctx: AccountContext) => {
    ctx.status = 303;
    ctx.redirect(`${accountPath('account')}?done=confirmed`);
  };
  return {
    withPasskey: async function confirmWithPasskey(ctx) {
      const { account, sessionUid, form } = ctx.state;
      try {
        const used = await passkeys.ceremonies.signIn(deps.challengeOwner(sessionUid), form.response);
        if (used.accountId !== account._id)
          throw new PasskeyRefused('the passkey belongs to another account');
        await proofs.record(sessionUid, account._id, 'passkey');
        void audit.record('factor_confirmed', {
          ...audited(ctx),
          details: { factor: 'passkey', passkey: used.passkeyName },
        });
      } catch (err) {
        if (!(err instanceof PasskeyRefused)) throw err;
        void audit.record('passkey_refused', {
          ...audited(ctx),
          details: { ceremony: 'confirmation', reason: err.reason },
        });
        return answer(ctx, 400, PASSKEY_NOT_CONFIRMED);
      }
      confirmed(ctx);
    },
    withPassword: [
      async function passwordMayConfirm(ctx, next) {
        const { account } = ctx.state;
        if ((await passkeys.store.count(account._id)) > 0)
          return answer(ctx, 403, 'Your account has a passkey: confirm it is you with the passkey.');
        if (await accounts.passwordSwitchedOff(account._id))
          return answer(
            ctx,
            403,
            'Password sign-in is off for your account: your password cannot confirm it is you.',
          );
        await next();
      },
      deps.throttlePasswordCheck,
      async function confirmWithPassword(ctx) {
        const { account, sessionUid, form } = ctx.state;
        if (!(await deps.passwordRight(ctx, form.password, 'confirm_password')))
          return answer(ctx, 401, 'That is not your password. Nothing was confirmed.');
        await proofs.record(sessionUid, account._id, 'password');
        void audit.record('factor_confirmed', { ...audited(ctx), details: { factor: 'password' } });
        confirmed(ctx);
      },
    ],
  };
}
