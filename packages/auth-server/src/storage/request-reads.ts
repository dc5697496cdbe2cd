/**
 * Storage reads that belong to one request, so that a request costs as few Redis round trips as
 * the data allows without ever reusing data across requests:
 *
 * - a read a step already made, handed to oidc-provider's models ({@link withRequestReads}: the
 *   introspection shortcut reads the presented access token in the script that counts the request,
 *   then asks the models whether it is active);
 * - a grant read together with its token by one script (oidc-provider asks for the grant right after).
 *
 * Each entry is keyed by the request (oidc-provider's `Provider.ctx` inside its routes, else the
 * step's scope, {@link withRequestReads}) and by the full storage key, is taken at most once, and
 * dies with the request. Nothing here outlives a request, so revocation and every other write stay
 * visible to the next request exactly as without these shortcuts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import Provider from 'oidc-provider';

/** A grant-bound model as `oidcFindWithGrant` returns it: payload, consumed-at, grant id, grant JSON. */
export type FoundWithGrant = [string, string | null, string | null, string | null];

// Kept as symbol-keyed properties of the request object itself: they die with the request, and a
// plain property costs less than a WeakMap entry (ephemeron bookkeeping in every GC) on the hot path.
// One slot of each kind: a step hands over one read and the adapter keeps one grant; a second keep
// replaces the first, which only costs the first its shortcut.
const STARTED = Symbol('made-read');
const GRANT = Symbol('kept-grant');

interface Slot<V> {
  key: string;
  value: V;
}
type Holder = { [STARTED]?: Slot<Promise<FoundWithGrant | null>>; [GRANT]?: Slot<string> };

function take<K extends typeof STARTED | typeof GRANT>(
  request: object | undefined,
  kind: K,
  key: string,
): NonNullable<Holder[K]>['value'] | undefined {
  const holder = request as Holder | undefined;
  const slot = holder?.[kind];
  if (!slot || slot.key !== key) return undefined;
  holder[kind] = undefined;
  return slot.value;
}

/**
 * The request of a step of ours calling oidc-provider's models outside its routes: an
 * AsyncLocalStorage, so it follows every model call `fn` makes, before and after any await.
 */
const stepRequest = new AsyncLocalStorage<Holder>();

/**
 * Runs `fn` (a step's calls of oidc-provider's models) as one request, the read `made` of its key
 * already made: the adapter takes it once instead of reading again.
 */
export function withRequestReads<T>(
  made: { key: string; found: Promise<FoundWithGrant | null> } | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const request: Holder = made ? { [STARTED]: { key: made.key, value: made.found } } : {};
  return stepRequest.run(request, fn);
}

/** The request the adapter serves now: oidc-provider's inside its routes, else a step's of ours. */
export function currentRequest(): object | undefined {
  return Provider.ctx ?? stepRequest.getStore();
}

/** The read of `key` this request's step already made, once. */
export function takeMadeRead(
  request: object | undefined,
  key: string,
): Promise<FoundWithGrant | null> | undefined {
  return take(request, STARTED, key);
}

/** Keeps a grant's JSON, read along with one of its tokens, for the rest of this request. */
export function keepGrant(request: object | undefined, key: string, json: string): void {
  if (request) (request as Holder)[GRANT] = { key, value: json };
}

/** The grant kept by this request, once. */
export function takeGrant(request: object | undefined, key: string): string | undefined {
  return take(request, GRANT, key);
}

/** Forgets a kept grant: this request is writing or deleting it. */
export function dropGrant(request: object | undefined, key: string): void {
  take(request, GRANT, key);
}
