/**
 * What a form's answer shows after its redirect (Post/Redirect/Get): a form that changed something
 * answers 303 to its page with `?notice=<id>`, and the page shows the notice kept under that id. The
 * notice is kept in Redis under the login session's uid and a random id, for a few minutes, and read
 * with GETDEL, so it is shown once: a reload shows the page without it and repeats nothing. What must
 * be seen once (a password an admin just reset, a staff account's generated password) is shown that
 * way. Only the browser of that login session can read it: the key holds the session's uid, which
 * never leaves the server, and the id alone names nothing in another session.
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '@school/shared';

/** How long a notice waits for its page, in seconds: the redirect is followed at once. */
const KEPT_SECONDS = 5 * 60;
const ID = /^[A-Za-z0-9_-]{16}$/;

/** The notices of the account pages' forms. */
export class OneTimeNotices {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(sessionUid: string, id: string): string {
    return `${this.prefix}notice:${sessionUid}:${id}`;
  }

  /** Keeps `notice` for `sessionUid`'s next page; the id its redirect carries. */
  async keep(sessionUid: string, notice: object): Promise<string> {
    const id = randomBytes(12).toString('base64url');
    await this.redis.set(this.key(sessionUid, id), JSON.stringify(notice), 'EX', KEPT_SECONDS);
    return id;
  }

  /** The notice kept under `id` for `sessionUid`, taken away; undefined when there is none (any more). */
  async take<T extends object>(sessionUid: string, id: unknown): Promise<T | undefined> {
    if (typeof id !== 'string' || !ID.test(id)) return undefined;
    const kept = await this.redis.getdel(this.key(sessionUid, id));
    return kept ? (JSON.parse(kept) as T) : undefined;
  }
}

/** `path` with the notice id that shows `notice` there once. */
export async function withNotice(
  notices: OneTimeNotices,
  sessionUid: string,
  path: string,
  notice: object,
): Promise<string> {
  return `${path}?${new URLSearchParams({ notice: await notices.keep(sessionUid, notice) }).toString()}`;
}
