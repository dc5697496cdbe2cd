/**
 * Which errors mean "a storage service cannot be reached right now" (MongoDB or Redis stopped,
 * restarting, or the network to it gone), for both services: the request may succeed later, so it
 * is answered 503 `temporarily_unavailable` with `Retry-After`, not 500, and logged as an outage,
 * not as a bug. The error's `cause` chain is followed, as wrappers keep the driver's error there.
 */

/** The MongoDB driver's and Mongoose's names for an unreachable server. */
const MONGO_OUTAGES = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

/**
 * ioredis's words for a connection that is down (with `enableOfflineQueue: false` a command fails at
 * once), and Mongoose's for a command it buffered while disconnected and then gave up on.
 */
const OUTAGE_MESSAGES = /Stream isn't writeable|Connection is closed|ECONNREFUSED|buffering timed out/;

/** True when `err` (or its cause) says MongoDB or Redis is unreachable. */
export function isStorageOutage(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const { name, message, cause } = err as { name?: unknown; message?: unknown; cause?: unknown };
  if (typeof name === 'string' && (MONGO_OUTAGES.has(name) || name === 'MaxRetriesPerRequestError'))
    return true;
  if (typeof message === 'string' && OUTAGE_MESSAGES.test(message)) return true;
  return cause !== undefined && cause !== err && isStorageOutage(cause, depth + 1);
}
