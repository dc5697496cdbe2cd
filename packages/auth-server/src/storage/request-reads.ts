/**
 * Storage reads that belong to one request, so that a request costs as few Redis round trips as
 * the data allows without ever reusing data across requests:
 *
 * - a read started before oidc-provider asks for it (the introspection route starts reading the
 *   presented access token while the rate limiter counts the request, so both share one round trip);
 * - a grant read together with its token by one script (oidc-provider asks for the grant right after).
 *
 * Each entry is keyed by the request's Koa context and by the full storage key, is taken at most once,
 * and dies with the context. Nothing here outlives a request, so revocation and every other write stay
 * visible to the next request exactly as without these shortcuts. Inside oidc-provider's routes the
 * request is `Provider.ctx`; a step of ours that calls the models itself names it with
 * {@link withRequestReads} (oidc-provider's own AsyncLocalStorage is internal to it).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import Provider from 'oidc-provider';

const ourRequest = new AsyncLocalStorage<object>();

/** Runs `fn` with `ctx` as the request whose reads the adapter takes (outside oidc-provider's routes). */
export function withRequestReads<T>(ctx: object, fn: () => T): T {
  return ourRequest.run(ctx, fn);
}

/** The request the adapter serves now: oidc-provider's inside its routes, else a step's of ours. */
export function currentRequest(): object | undefined {
  return Provider.ctx ?? ourRequest.getStore();
}

/** A grant-bound model as `oidcFindWithGrant` returns it: payload, consumed-at, grant id, grant JSON. */
export type FoundWithGrant = [string, string | null, string | null, string | null];

// Kept as symbol-keyed properties of the context object itself: they die with the request, and a
// plain property costs less than a WeakMap entry (ephemeron bookkeeping in every GC) on the hot path.
// One slot of each kind: a request reads one token early and keeps one grant; a second keep replaces
// the first, which only costs the first its shortcut.
const STARTED = Symbol('started-read');
const GRANT = Symbol('kept-grant');

interface Slot<V> {
  key: string;
  value: V;
}
type Holder = { [STARTED]?: Slot<Promise<FoundWithGrant | null>>; [GRANT]?: Slot<string> };

function take<K extends typeof STARTED | typeof GRANT>(
  ctx: object | undefined,
  kind: K,
  key: string,
): NonNullable<Holder[K]>['value'] | undefined {
  const holder = ctx as Holder | undefined;
  const slot = holder?.[kind];
  if (!slot || slot.key !== key) return undefined;
  holder[kind] = undefined;
  return slot.value;
}

/** Records a read begun early for `ctx`'s request. A rejection not taken by anyone is ignored. */
export function startRead(ctx: object, key: string, read: Promise<FoundWithGrant | null>): void {
  read.catch(() => undefined);
  (ctx as Holder)[STARTED] = { key, value: read };
}

/** The read of `key` begun earlier in this request, once. */
export function takeStartedRead(
  ctx: object | undefined,
  key: string,
): Promise<FoundWithGrant | null> | undefined {
  return take(ctx, STARTED, key);
}

/** Keeps a grant's JSON, read along with one of its tokens, for the rest of this request. */
export function keepGrant(ctx: object | undefined, key: string, json: string): void {
  if (ctx) (ctx as Holder)[GRANT] = { key, value: json };
}

/** The grant kept by this request, once. */
export function takeGrant(ctx: object | undefined, key: string): string | undefined {
  return take(ctx, GRANT, key);
}

/** Forgets a kept grant: this request is writing or deleting it. */
export function dropGrant(ctx: object | undefined, key: string): void {
  take(ctx, GRANT, key);
}
