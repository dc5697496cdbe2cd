/**
 * The one way this server fetches a URL a client chose (a Client ID Metadata Document): safe by
 * construction, whatever the URL says.
 *
 * - `https` only; no redirect is followed (a 3xx is a refusal); no cookies or credentials are sent;
 *   `Accept: application/json`, and only an `application/json` answer of status 200 is read.
 * - A short overall timeout, and a body limit of a few KB counted while reading (a lying or missing
 *   `Content-Length` does not help a huge body through).
 * - Nothing is ever connected to a special-use address (special-use-address.ts; loopback only when
 *   `allowLoopback` says so, the test suites, never by default). An IP literal is checked before any
 *   socket is opened (Node skips the `lookup` hook for literals); a name's every resolved address is
 *   checked before connecting (an answer with any special-use address is refused whole); and the
 *   address the TCP socket actually connected to is checked again before TLS or HTTP start, so a
 *   name that resolves to a public address when someone looks and to 127.0.0.1 when we connect (DNS
 *   rebinding) is refused too.
 * - Concurrent fetches of one URL share one request (single flight). How often a host is fetched is
 *   the caller's budget (cimd-resolver.ts), not this module's.
 *
 * A failure says whether the host failed (`unreachable`: network, timeout, 5xx, 429), for which a
 * document fetched before may still be served for a while, or answered something unacceptable
 * (`refused`), and whether anything was sent at all (`beforeConnecting`). Its message is for the log
 * and the operator only: it can say what an address answered.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { connect as tcpConnect, isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, buildConnector, request } from 'undici';
import { specialUseProblem } from './special-use-address.js';

/** The most a document may weigh: the draft suggests 5 KB. */
export const DOCUMENT_BYTES_LIMIT = 5 * 1024;

/** Why a fetch gave no document. */
export class DocumentFetchError extends Error {
  /**
   * `unreachable`: the host failed (stale may be served); `refused`: it answered wrongly, or the URL
   * may not be fetched. `beforeConnecting`: refused on the URL alone, no connection was opened.
   */
  constructor(
    readonly kind: 'unreachable' | 'refused',
    message: string,
    readonly beforeConnecting = false,
  ) {
    super(message);
    this.name = 'DocumentFetchError';
  }
}

/** A fetched JSON document and how long its host says it may be reused. */
export interface FetchedDocument {
  body: unknown;
  /** Seconds from `Cache-Control` (`max-age`; 0 for `no-store`/`no-cache`) or `Expires`, if given. */
  maxAgeSeconds?: number;
}

/** How the fetcher is set up. */
export interface DocumentFetcherOptions {
  /** The whole fetch (connect, TLS, headers, body), ms. */
  timeoutMs: number;
  /** Connect to loopback addresses too (test suites only). */
  allowLoopback?: boolean;
  /** PEM certificates trusted besides the system's roots (test suites only: a test CA). */
  extraCa?: string;
  /** Resolves names instead of the system resolver (tests only: to point a name at an address). */
  lookup?: LookupFunction;
}

/** Seconds a response may be reused according to its cache headers, if they say. */
export function cacheSeconds(headers: Record<string, string | string[] | undefined>): number | undefined {
  const header = (name: string) => [headers[name]].flat()[0];
  const directives = (header('cache-control') ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)?.[1]).find(Boolean);
  if (maxAge !== undefined) return Number(maxAge);
  const expires = Date.parse(header('expires') ?? '');
  return Number.isNaN(expires) ? undefined : Math.max(0, Math.floor((expires - Date.now()) / 1000));
}

/**
 * A resolver that refuses a name if ANY of its addresses is special-use, before connecting: an answer
 * mixing a public and a private address (a rebinding trick) could land the connection on either.
 */
function checkedLookup(base: LookupFunction, allowLoopback: boolean): LookupFunction {
  return ((host: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    base(host, { ...opts, all: true }, (err: Error | null, answer: unknown) => {
      if (err) return callback(err);
      const addresses = answer as LookupAddress[];
      const problem = addresses.map((a) => specialUseProblem(a.address, allowLoopback)).find(Boolean);
      if (problem || !addresses.length)
        return callback(new DocumentFetchError('refused', `${host} resolves to ${problem ?? 'nothing'}`));
      if (opts.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as unknown as LookupFunction;
}

/** A dispatcher whose every connection is checked on the socket it actually connected. */
function checkedAgent(options: DocumentFetcherOptions): Agent {
  const tls = buildConnector({
    ca: options.extraCa ? [...rootCertificates, options.extraCa] : undefined,
    timeout: options.timeoutMs,
  });
  const lookup = checkedLookup(options.lookup ?? dnsLookup, !!options.allowLoopback);
  const connect: buildConnector.connector = (opts, callback) => {
    if (opts.protocol !== 'https:') return callback(new Error('only https is fetched'), null);
    const literalProblem = urlAddressProblem(opts.hostname, !!options.allowLoopback);
    if (literalProblem) return callback(new DocumentFetchError('refused', literalProblem, true), null);
    const socket = tcpConnect({ host: opts.hostname, port: Number(opts.port) || 443, lookup });
    const fail = (err: Error) => {
      socket.destroy();
      callback(err, null);
    };
    socket.once('error', fail);
    socket.setTimeout(options.timeoutMs, () => fail(new Error('connect timed out')));
    socket.once('connect', () => {
      socket.off('error', fail);
      socket.setTimeout(0);
      const problem = specialUseProblem(socket.remoteAddress, options.allowLoopback);
      if (problem) return fail(new DocumentFetchError('refused', `refused to connect: ${problem}`));
      tls({ ...opts, httpSocket: socket }, callback);
    });
  };
  return new Agent({ connect, connections: 4, pipelining: 0 });
}

/** Why the host of a URL (`URL.hostname`), when it is an IP literal, may not be connected to. */
function urlAddressProblem(hostname: string, allowLoopback: boolean): string | undefined {
  const address = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(address) ? specialUseProblem(address, allowLoopback) : undefined;
}

/**
 * Why `url` will not be fetched whatever its host answers (not https, credentials, a special-use IP
 * literal), or undefined. Checked before any budget is spent or socket opened.
 */
export function unfetchableUrlProblem(url: string, allowLoopback = false): string | undefined {
  const target = URL.parse(url);
  if (!target || target.protocol !== 'https:') return 'only https URLs are fetched';
  if (target.username || target.password) return 'the URL carries credentials';
  return urlAddressProblem(target.hostname, allowLoopback);
}

/** A fetcher of small JSON documents by https URL (see the module comment). */
export function createDocumentFetcher(
  options: DocumentFetcherOptions,
): (url: string) => Promise<FetchedDocument> {
  const dispatcher = checkedAgent(options);
  const inFlight = new Map<string, Promise<FetchedDocument>>();

  async function fetchOnce(url: string): Promise<FetchedDocument> {
    const problem = unfetchableUrlProblem(url, options.allowLoopback);
    if (problem) throw new DocumentFetchError('refused', problem, true);
    const target = new URL(url);
    let res;
    try {
      res = await request(target, {
        dispatcher,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'school-auth (client metadata)' },
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      if (err instanceof DocumentFetchError) throw err;
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof DocumentFetchError) throw cause;
      throw new DocumentFetchError('unreachable', `fetch failed: ${(err as Error).message}`);
    }
    const { statusCode, headers, body } = res;
    const refuse = (kind: DocumentFetchError['kind'], message: string): Promise<never> => {
      body.on('error', () => undefined).destroy(); // aborting the body is the point: not an error
      return Promise.reject(new DocumentFetchError(kind, message));
    };
    if (statusCode >= 300 && statusCode < 400)
      await refuse('refused', `answered ${statusCode}: redirects are not followed`);
    if (statusCode >= 500 || statusCode === 429) await refuse('unreachable', `answered ${statusCode}`);
    if (statusCode !== 200) await refuse('refused', `answered ${statusCode}`);
    const type = String([headers['content-type']].flat()[0] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (type !== 'application/json')
      await refuse('refused', `answered ${type || 'no content type'}, not application/json`);
    if (Number(headers['content-length']) > DOCUMENT_BYTES_LIMIT)
      await refuse('refused', 'the document is too large');
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > DOCUMENT_BYTES_LIMIT)
          await refuse('refused', `the document is larger than ${DOCUMENT_BYTES_LIMIT} bytes`);
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof DocumentFetchError) throw err;
      throw new DocumentFetchError('unreachable', `reading the document failed: ${(err as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new DocumentFetchError('refused', 'the document is not valid JSON');
    }
    return { body: parsed, maxAgeSeconds: cacheSeconds(headers) };
  }

  return (url: string) => {
    let pending = inFlight.get(url);
    if (!pending) {
      pending = fetchOnce(url).finally(() => inFlight.delete(url));
      inFlight.set(url, pending);
    }
    return pending;
  };
}
