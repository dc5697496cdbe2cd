/**
 * WebAuthn challenges in Redis: one per ceremony (a sign-in page, a Your account page), kept for
 * {@link CHALLENGE_TTL_SECONDS} and taken with `GETDEL`, so each is checked at most once: a replayed
 * assertion finds no challenge, or a newer one it was not made for.
 */
import type { RedisClient } from '@school/shared';

/** How long a challenge waits for its answer: the browser's own timeout plus a little. */
export const CHALLENGE_TTL_SECONDS = 5 * 60;

/** Where challenges are kept, per purpose and owner (an interaction or a login session). */
export class Challenges {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(purpose: 'sign-in' | 'register', owner: string): string {
    return `${this.prefix}webauthn:${purpose}:${owner}`;
  }

  /** Keeps `challenge` as the one `owner` may answer next (replacing an earlier one). */
  async put(purpose: 'sign-in' | 'register', owner: string, challenge: string): Promise<void> {
    await this.redis.set(this.key(purpose, owner), challenge, 'EX', CHALLENGE_TTL_SECONDS);
  }

  /** The challenge `owner` was given, removed at once; undefined when none is waiting. */
  async take(purpose: 'sign-in' | 'register', owner: string): Promise<string | undefined> {
    return (await this.redis.getdel(this.key(purpose, owner))) ?? undefined;
  }
}
