/**
 * Fresh proofs of a factor, which Your account asks before a passkey is added or removed and before
 * recovery codes are made: what signs the account in may only be changed by someone who just showed
 * the strongest factor the account has (docs/decisions.md).
 *
 * - An account with a passkey needs a passkey: an assertion made on Your account for this login
 *   session, or this session's own sign-in with a passkey or a recovery code (a code is the passkey's
 *   stand-in, and codes are only ever made after a passkey's proof), within {@link PROOF_SECONDS}.
 * - An account without one needs its password typed again on Your account within the same time.
 *
 * A proof is kept in Redis per login session (its uid) and names its account, so it counts for that
 * session only, and only while the account has no stronger factor than the one shown: a password
 * proof stops counting the moment the account has a passkey.
 */
import type { RedisClient } from '@school/shared';
import { signedInWithPasskey } from './sign-in-methods.js';

/** How long a proof counts: a few minutes. */
export const PROOF_SECONDS = 5 * 60;

/** The factors a proof can show, weakest first. */
export type ProofFactor = 'password' | 'passkey';

/** How a login session signed in, as oidc-provider keeps it. */
export interface SessionSignIn {
  amr?: readonly string[];
  /** When it signed in, seconds since the epoch. */
  loginTs?: number;
}

/** The factor a change needs on an account with `passkeyCount` passkeys. */
export function factorNeeded(passkeyCount: number): ProofFactor {
  return passkeyCount > 0 ? 'passkey' : 'password';
}

/** True when a sign-in showed a passkey-strength factor (a passkey or a recovery code) within the window. */
export function freshPasskeySignIn(signIn: SessionSignIn, now = Date.now()): boolean {
  const passkeyLike = signedInWithPasskey(signIn.amr) || (signIn.amr?.includes('otp') ?? false);
  return passkeyLike && signIn.loginTs !== undefined && now / 1000 - signIn.loginTs <= PROOF_SECONDS;
}

/** Proofs made on Your account, per login session. */
export class FactorProofs {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(sessionUid: string): string {
    return `${this.prefix}factor-proof:${sessionUid}`;
  }

  /** Records that `accountId` showed `factor` in login session `sessionUid` just now. */
  async record(sessionUid: string, accountId: string, factor: ProofFactor): Promise<void> {
    await this.redis.set(this.key(sessionUid), JSON.stringify({ accountId, factor }), 'EX', PROOF_SECONDS);
  }

  /** Ends the session's proof (its factor was used up, or the session ends). */
  async forget(sessionUid: string): Promise<void> {
    await this.redis.del(this.key(sessionUid));
  }

  /**
   * The strongest factor `accountId` has shown in this session within the window: a proof made on
   * the page, or the session's own sign-in; undefined when none.
   */
  async shown(
    sessionUid: string,
    accountId: string,
    signIn: SessionSignIn,
  ): Promise<ProofFactor | undefined> {
    if (freshPasskeySignIn(signIn)) return 'passkey';
    const stored = await this.redis.get(this.key(sessionUid));
    if (!stored) return undefined;
    const proof = JSON.parse(stored) as { accountId?: string; factor?: ProofFactor };
    return proof.accountId === accountId && (proof.factor === 'passkey' || proof.factor === 'password')
      ? proof.factor
      : undefined;
  }

  /** True when the session showed a factor at least as strong as `needed`. */
  async satisfies(
    sessionUid: string,
    accountId: string,
    signIn: SessionSignIn,
    needed: ProofFactor,
  ): Promise<boolean> {
    const shown = await this.shown(sessionUid, accountId, signIn);
    return shown === 'passkey' || (shown === 'password' && needed === 'password');
  }
}
