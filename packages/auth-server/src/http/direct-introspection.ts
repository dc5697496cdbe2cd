/**
 * The resource API's introspections of active access tokens, answered without oidc-provider's HTTP
 * pipeline: the introspection row's shortcut (the endpoint table's `shortcut`), its last step before
 * oidc-provider.
 *
 * Introspection is the auth server's hottest call: every cache miss of every API instance. Through
 * oidc-provider each one costs its whole request path around one Redis round trip: its Koa app and
 * router, body and parameter assembly, client authentication, a JWT probe of the opaque token (two
 * exceptions thrown and caught), a parallel refresh-token lookup, and its AsyncLocalStorage around all
 * of it (bench/PERFORMANCE.md, "RS3").
 *
 * What stays oidc-provider's: whether a token is active. This step takes exactly one shape of
 * request, and answers it only when oidc-provider's own models say the token is valid; everything
 * else goes on to oidc-provider unchanged (`next()`), which then answers as it always did:
 * - the request: no query string, no `Origin` (a browser's request, which oidc-provider's
 *   client-based CORS check refuses) and no `Authorization` header, the parameters `token`, `client_id`, `client_secret` and
 *   optionally `token_type_hint=access_token`, each once, each a value that needs no decoding (the
 *   form request-form.ts read once for every step), and the credentials of the configured
 *   introspection client (`INTROSPECTION_CLIENT_ID`, its secret compared in constant time; that client
 *   is `client_secret_post` and may introspect every token);
 * - the token: `AccessToken.find` (oidc-provider's model: the adapter's read, the token's format and
 *   expiry checks, the client-gone rule of storage/redis-adapter.ts), `isValid`, then its grant as
 *   oidc-provider's introspection checks it (`Grant.find` ignoring expiry, then not expired, same
 *   client, same account), no certificate binding and no authorization details (neither is enabled);
 *   a DPoP binding is answered as oidc-provider answers it (`cnf: {jkt}`, `token_type: DPoP`).
 *   oidc-provider also looks up the token's client, for one reason: a pairwise client's `sub` is
 *   computed. This server offers public subjects only (`SUBJECT_TYPES`, configuration.ts), so no
 *   client can be pairwise and that lookup is skipped; the client's existence is already the
 *   adapter's rule (a token of a client that is gone is not found).
 * The answer is built as oidc-provider's `renderTokenResponse` builds it, key for key and in the same
 * order, with the headers its introspection route sets. A differential test
 * (test/direct-introspection.test.ts) holds the two paths to the same bytes for every kind of token
 * and request, and proves that anything not active is answered by oidc-provider.
 *
 * The step counts its requests under the introspection rate limit itself, in the Redis script that
 * also reads the token and its grant (storage/introspection-count.ts), under the limit's own key layout
 * (the limit's step counts every other introspection in the same bucket), and hands that read to the
 * models it calls as an argument of {@link withRequestReads}, so the adapter does not read again.
 * Each answer is reported to `onAnswered` (the metrics count them). DIRECT_INTROSPECTION=false leaves
 * this step out; the limit's step then counts every introspection.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Provider } from 'oidc-provider';
import { isPlainForm, requestForm } from './request-form.js';
import type { RateLimiting } from './rate-limit.js';
import type { Count, IntrospectionCount } from '../storage/introspection-count.js';
import { SUBJECT_TYPES } from '../provider/configuration.js';
import { withRequestReads } from '../storage/request-reads.js';

/** Opaque token values as oidc-provider mints them (base64url); the shortcut takes no other. */
const TOKEN_SHAPE = /^[\w-]{20,128}$/;
/** The `token_type_hint` values under which oidc-provider looks the access token up first. */
const ACCESS_TOKEN_HINTS: ReadonlySet<string> = new Set([
  'access_token',
  'urn:ietf:params:oauth:token-type:access_token',
]);

/** Whether a client can have pairwise subjects (then its `sub` is oidc-provider's to compute). */
const PAIRWISE_SUBJECTS = SUBJECT_TYPES.includes('pairwise');

const PARAMETERS: ReadonlySet<string> = new Set(['token', 'token_type_hint', 'client_id', 'client_secret']);

const digest = (value: string) => hash('sha256', value, 'buffer');

/** Whether the form has only this step's parameters, each once. */
function onlyOurParameters(form: URLSearchParams): boolean {
  const seen = new Set<string>();
  for (const key of form.keys()) {
    if (!PARAMETERS.has(key) || seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/** What the step needs to know. */
export interface DirectIntrospectionOptions {
  provider: Provider;
  /** The configured introspection client (oidc-provider's static client, `client_secret_post`). */
  clientId: string;
  clientSecret: string;
  /** The rate limits: the step counts its requests under the introspection limit itself. */
  limits: Pick<RateLimiting, 'introspection'>;
  /** Counts a request and reads its token in one script (storage/introspection-count.ts). */
  countAndRead: IntrospectionCount;
  /** Told of every introspection this step answers. */
  onAnswered?: () => void;
}

/** The step answering the introspection client's requests for active access tokens. */
export function directIntrospection({
  provider,
  clientId,
  clientSecret,
  limits,
  countAndRead,
  onAnswered,
}: DirectIntrospectionOptions): Middleware {
  const secretDigest = digest(clientSecret);
  return async function answerActiveAccessTokens(ctx, next) {
    if (ctx.method !== 'POST' || ctx.querystring !== '') {
      await next();
      return;
    }
    // A browser's request (oidc-provider's client-based CORS check refuses it for this client), or
    // credentials in a header (the client authentication step refuses them).
    if (ctx.get('origin') || ctx.get('authorization')) {
      await next();
      return;
    }
    // The form the steps before read (request-form.ts): not a form, over the limit, or anything but
    // plain pairs of this step's parameters, each once, is not ours.
    const form = await requestForm(ctx);
    if (typeof form === 'string' || !isPlainForm(form) || !onlyOurParameters(form)) {
      await next();
      return;
    }
    const value = form.get('token');
    const hint = form.get('token_type_hint') ?? undefined;
    const secret = form.get('client_secret');
    if (!value || !TOKEN_SHAPE.test(value) || (hint !== undefined && !ACCESS_TOKEN_HINTS.has(hint))) {
      await next();
      return;
    }
    if (form.get('client_id') !== clientId || secret === null) {
      await next();
      return;
    }
    if (!timingSafeEqual(digest(secret), secretDigest)) {
      await next();
      return;
    }

    // Counted under the introspection limit in the script that reads the token (one round trip);
    // the limit's own step then leaves this request alone.
    const limit = limits.introspection(ctx, clientId);
    const { count, read } = countAndRead(limit.bucket, limit.seconds, value);
    read?.found.catch(() => undefined); // not taken when the count refuses the request
    let counted: Count;
    try {
      counted = await count;
    } catch {
      await next(); // Redis unreachable: the limit's step lets it through, oidc-provider reports it
      return;
    }
    limit.settle(counted);

    let answer: Record<string, unknown> | undefined;
    try {
      answer = await withRequestReads(read, () => activeAnswer(provider, value, clientId));
    } catch {
      answer = undefined; // storage trouble: oidc-provider's path reports it the way it always has
    }
    if (!answer) {
      await next();
      return;
    }
    ctx.set('cache-control', 'no-store');
    ctx.vary('Origin'); // as oidc-provider's router marks every answer of its CORS-enabled routes
    ctx.body = answer;
    onAnswered?.();
  };
}

/**
 * oidc-provider's introspection answer for an access token it finds valid, or undefined for anything
 * else (oidc-provider then answers).
 */
async function activeAnswer(
  provider: Provider,
  value: string,
  introspector: string,
): Promise<Record<string, unknown> | undefined> {
  const token = await provider.AccessToken.find(value);
  if (!token?.isValid) return undefined;
  const grantId = token.grantId;
  if (grantId) {
    const grant = await provider.Grant.find(grantId, { ignoreExpiration: true });
    if (!grant || grant.isExpired) return undefined;
    if (grant.clientId !== token.clientId || grant.accountId !== token.accountId) return undefined;
  }
  // A DPoP-bound token is answered here too (`cnf.jkt`, `token_type: DPoP`); a certificate-bound one
  // cannot exist (mTLS is off) and is left to oidc-provider, as are authorization details.
  if (token['x5t#S256'] || (token as { rar?: unknown }).rar) return undefined;
  const body: Record<string, unknown> = { active: false };
  if (token.accountId) {
    body.sub = token.accountId;
    if (PAIRWISE_SUBJECTS && token.clientId !== introspector) {
      const client = await provider.Client.find(token.clientId!);
      if (!client || client.subjectType === 'pairwise') return undefined;
    }
  }
  Object.assign(body, {
    ...token.extra,
    active: true,
    client_id: token.clientId,
    exp: token.exp,
    iat: token.iat,
    sid: token.sid,
    iss: provider.issuer,
    jti: token.jti !== value ? token.jti : undefined,
    aud: token.aud,
    authorization_details: undefined,
    scope: token.scope || undefined,
    cnf: token.jkt ? { jkt: token.jkt } : undefined,
    token_type: token.tokenType,
  });
  return body;
}
