/**
 * RFC 7662 introspection at the auth server, over one keep-alive connection pool (undici `Pool`).
 *
 * Why not `fetch`: measured on Node 20, a `fetch` per request cost 3-4x the CPU of a pooled request,
 * and a new connection per call doubled it again. The pool's idle timeout (4 s) is below the auth
 * server's keep-alive timeout, so an idle socket is never reused just as the server closes it. Every call has a deadline; any failure to get a well-formed answer
 * (network error, timeout, 5xx, bad JSON) is {@link AuthServerUnavailableError}: the API then
 * answers 503, never 401, because it does not know whether the token is good. A refusal that can
 * only be about the token (a JWT-shaped or oversized one, introspection-answers.ts) is an inactive
 * token; a refusal of our own credentials is {@link IntrospectionCredentialsError}, 503 too.
 *
 * A call whose connection closes before any answer, or does not open within a third of the deadline,
 * is sent once more, a moment later: a pooled
 * keep-alive connection can be closed by the other side (an edge reloading, an auth server
 * draining) just as a request is written on it. The pool's other idle connections are then usually
 * being closed too; after the pause the pool has dropped them, and the resend takes a live one or
 * opens a new one. Introspection changes nothing at the auth server, so
 * sending it again is safe (RFC 9110 §9.2.2 lets a client retry such a request automatically).
 * A new connection finds the auth server through steady-lookup.ts: when the resolver stalls, the
 * address it gave last.
 */
import { OAUTH_ROUTES, introspectionAnswerSchema, type IntrospectionAnswer } from '@school/shared';
import { Pool } from 'undici';
import { refusalOf } from './introspection-answers.js';
import { steadyLookup, type LookupFunction } from './steady-lookup.js';

/** One introspection answer (`@school/shared` introspection.ts: the fields the API relies on). */
export type Introspection = IntrospectionAnswer;

/** Anything that can introspect a token. */
export interface Introspector {
  /** `requestId`: the id of the request that needs the answer, passed on for the logs. */
  introspect(token: string, requestId?: string): Promise<Introspection>;
}

/** The auth server could not give an answer. */
export class AuthServerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthServerUnavailableError';
  }
}

/** The auth server refused this API's own client credentials: an outage of ours, for the operator. */
export class IntrospectionCredentialsError extends AuthServerUnavailableError {
  constructor(message: string) {
    super(message);
    this.name = 'IntrospectionCredentialsError';
  }
}

/** Marks an introspection request that reports a scope's use rather than checks a token (logs, tests). */
export const SCOPE_USE_HEADER = 'x-scope-use-report';

/**
 * Errors of a call that got no answer because its connection closed under it (undici's
 * `SocketError`, or the system's), or never opened (undici's `ConnectTimeoutError`: nothing was sent).
 */
const RESENDABLE: ReadonlySet<string> = new Set([
  'UND_ERR_SOCKET',
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether `err`, a failed call, may be sent once more: it got no answer, as {@link RESENDABLE} says. */
export function resendable(err: unknown): boolean {
  if (!(err instanceof AuthServerUnavailableError)) return false;
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && RESENDABLE.has(code);
}

/** How long a resend waits for the pool to drop connections closed along with the first one. */
const RESEND_PAUSE_MS = 50;

/** What the API makes of a token the auth server refused to look at. */
const REFUSED_TOKEN: Introspection = Object.freeze({ active: false });

/** The OAuth `error` of an error answer's body, if it has one (the body is read up to 4 KiB). */
async function oauthErrorOf(body: { text(): Promise<string> }): Promise<string | undefined> {
  try {
    const parsed = JSON.parse((await body.text()).slice(0, 4096)) as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error.slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}

/** Options of {@link IntrospectionClient}. */
export interface IntrospectionClientOptions {
  /** The auth server's internal origin, e.g. `http://127.0.0.1:8082`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  /** Most concurrent connections to the auth server. */
  connections?: number;
  /** How a new connection finds the auth server's address; default {@link steadyLookup}. */
  lookup?: LookupFunction;
}

/** Introspects tokens at the auth server's introspection route with client_secret_post. */
export class IntrospectionClient implements Introspector {
  private readonly pool: Pool;
  private readonly path = OAUTH_ROUTES.introspection;

  constructor(private readonly options: IntrospectionClientOptions) {
    this.pool = new Pool(options.authUrl, {
      connections: options.connections ?? 32,
      keepAliveTimeout: 4_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      // A third of the deadline: a connect that hangs (a SYN dropped while a container network
      // changes) leaves time for the one resend on a new connection.
      connectTimeout: Math.max(100, Math.floor(options.timeoutMs / 3)),
      // A resolver that stalls while containers start and stop does not stall every new connection.
      connect: { lookup: options.lookup ?? steadyLookup() },
    });
  }

  async introspect(token: string, requestId?: string): Promise<Introspection> {
    const body = new URLSearchParams({
      token,
      token_type_hint: 'access_token',
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
    }).toString();
    // The deadline covers the whole call (a wait for a free connection included) and is cleared as
    // soon as the answer is read. Not `AbortSignal.timeout`: its timer outlives the call, and when it
    // fires seconds later it still builds a DOMException and dispatches an abort for every call
    // (~10 % of a cache miss's CPU in a profile).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error('timed out')), this.options.timeoutMs);
    try {
      return await this.call(body, deadline.signal, requestId);
    } catch (err) {
      if (deadline.signal.aborted || !resendable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, RESEND_PAUSE_MS));
      return await this.call(body, deadline.signal, requestId);
    } finally {
      clearTimeout(timer);
    }
  }

  private async call(body: string, signal: AbortSignal, requestId?: string): Promise<Introspection> {
    let res;
    try {
      res = await this.pool.request({
        method: 'POST',
        path: this.path,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          // The auth server logs its line for this call under the id of the request that caused it.
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
        body,
        signal,
      });
    } catch (err) {
      throw new AuthServerUnavailableError(`introspection request failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (res.statusCode !== 200) {
      const error = res.statusCode < 500 ? await oauthErrorOf(res.body) : undefined;
      await res.body.dump().catch(() => undefined);
      const answer = `introspection answered HTTP ${res.statusCode}${error ? ` ${error}` : ''}`;
      const refusal = refusalOf(res.statusCode, error);
      if (refusal === 'token') return REFUSED_TOKEN;
      if (refusal === 'credentials') {
        throw new IntrospectionCredentialsError(
          `${answer}: the auth server refuses this API's client (INTROSPECTION_CLIENT_ID/INTROSPECTION_CLIENT_SECRET)`,
        );
      }
      throw new AuthServerUnavailableError(answer);
    }
    let json: unknown;
    try {
      json = await res.body.json();
    } catch (err) {
      throw new AuthServerUnavailableError('introspection answered something other than JSON', {
        cause: err,
      });
    }
    const parsed = introspectionAnswerSchema.safeParse(json);
    if (!parsed.success) throw new AuthServerUnavailableError('introspection answer is malformed');
    return parsed.data;
  }

  /**
   * Tells the auth server that an operation needing `scope` was served with `token`: an introspection
   * request with `used_scope` (RFC 7662 §2.1 allows more parameters), its answer discarded. Never
   * throws; nothing waits for it.
   */
  noteUse(token: string, scope: string, requestId?: string): void {
    const body = new URLSearchParams({
      token,
      token_type_hint: 'access_token',
      used_scope: scope,
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
    }).toString();
    this.pool
      .request({
        method: 'POST',
        path: this.path,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          [SCOPE_USE_HEADER]: '1',
          // Logged under the id of the request that used the scope, like a token check.
          ...(requestId ? { 'x-request-id': requestId } : {}),
        },
        body,
        // Its own connection, closed after the answer: a note in flight never holds a pooled
        // connection open while the auth server drains.
        reset: true,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
      .then((res) => res.body.dump())
      .catch(() => undefined); // a lost note only makes "last used" on Connected apps older
  }

  /** Closes the pool's connections. */
  async close(): Promise<void> {
    await this.pool.close();
  }
}
