/**
 * The request id both services log and echo: the one the edge sent in `X-Request-Id` when it is
 * safe to log (1–128 word characters, dots, colons and dashes), else a new UUID. One rule for both,
 * since the API passes its ids on to the auth server with its introspection calls.
 */
import { randomUUID } from 'node:crypto';

const SAFE_ID = /^[\w.:-]{1,128}$/;

/** The id for a request whose `X-Request-Id` header was `given` (absent: undefined or empty). */
export function requestIdFrom(given: string | undefined): string {
  return given && SAFE_ID.test(given) ? given : randomUUID();
}
