/**
 * PASSKEY_FOR_WRITE_CONSENT: an authorization request naming a write scope (`<area>:write`) from a
 * session that was not signed in with a passkey asks for the login prompt again, with the reason
 * {@link PASSKEY_REQUIRED}; the login page then offers the passkey alone (interactions/login.ts).
 * It is a check of oidc-provider's login prompt, so no consent page, code or token can be reached
 * around it.
 *
 * It reads only how the session signed in (`amr`, set once by the login page after a verified
 * assertion), never whether the account has a passkey: a confirmation on Your account
 * (factor-proof.ts) does not change `amr`, and a passkey is only added after a fresh proof of the
 * account's strongest factor. Removing a passkey ends the sessions it may have signed in, so a
 * removed passkey's session passes this check no more.
 */
import { interactionPolicy } from 'oidc-provider';
import { namesWriteScope, signedInWithPasskey } from './sign-in-methods.js';

/** The login prompt's reason when a passkey sign-in is needed first. */
export const PASSKEY_REQUIRED = 'passkey_required';

/** oidc-provider's default interaction policy, with the passkey check added to the login prompt when `required`. */
export function interactionPolicyWithPasskeys(required: boolean): interactionPolicy.DefaultPolicy {
  const policy = interactionPolicy.base();
  if (!required) return policy;
  const { Check } = interactionPolicy;
  policy.get('login')!.checks.add(
    new Check(PASSKEY_REQUIRED, 'a passkey sign-in is required before granting write access', (ctx) => {
      const { session, params } = ctx.oidc;
      if (!session?.accountId || !namesWriteScope(params?.scope)) return Check.NO_NEED_TO_PROMPT;
      return signedInWithPasskey(session.amr) ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
    }),
  );
  return policy;
}
