/**
 * A real HTTPS server on loopback, with a test CA made for the occasion (openssl), serving whatever
 * each test puts at a path: the stand-in for a client's web site publishing its Client ID Metadata
 * Document. The auth server trusts the CA through its test-only `CIMD_EXTRA_CA_FILE` setting.
 *
 * The certificate names `localhost`, 127.0.0.1 and every name in {@link TEST_HOSTS}; tests point those
 * names at 127.0.0.1 with {@link loopbackLookup} (the fetcher's test-only `lookup`).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names the test certificate is valid for besides localhost and 127.0.0.1. */
export const TEST_HOSTS = ['cimd.test', 'rebind.test', 'private.test'] as const;

/** A test CA and a server certificate it signed, as PEM, and the CA's file. */
export interface TestPki {
  caPem: string;
  caFile: string;
  keyPem: string;
  certPem: string;
}

/** Makes a CA and a server certificate for localhost, 127.0.0.1 and {@link TEST_HOSTS}. */
export function makeTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'test-pki-'));
  const f = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=school test CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  );
  ssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
  );
  const names = ['DNS:localhost', 'IP:127.0.0.1', ...TEST_HOSTS.map((h) => `DNS:${h}`)];
  writeFileSync(f('ext.cnf'), `subjectAltName=${names.join(',')}\n`);
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
    '-out',
    f('server.pem'),
  );
  return {
    caPem: readFileSync(f('ca.pem'), 'utf8'),
    caFile: f('ca.pem'),
    keyPem: readFileSync(f('server.key'), 'utf8'),
    certPem: readFileSync(f('server.pem'), 'utf8'),
  };
}

/** What a path answers. */
export type DocumentHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A running HTTPS document server. */
export interface DocumentServer {
  port: number;
  /** `https://<host>:<port><path>` (host: `localhost` unless given). */
  url(path: string, host?: string): string;
  /** Serves `handler` at `path` from now on. */
  route(path: string, handler: DocumentHandler): void;
  /** Serves `doc` as JSON at `path`, with these extra headers. */
  json(path: string, doc: unknown, headers?: Record<string, string>): void;
  /**
   * Publishes a client's metadata document at a fresh path `/<dir>/<random>/<file>` (default
   * `/apps/…/client.json`), its `client_id` the path's URL on 127.0.0.1, served with
   * `Cache-Control: max-age=<maxAge>` (default 60); returns the client_id and the path.
   */
  publish(
    doc: Record<string, unknown>,
    options?: { dir?: string; file?: string; maxAge?: number },
  ): { clientId: string; path: string };
  /** How many requests reached each path. */
  hits: Map<string, number>;
  /** TCP connections accepted (whether or not a request followed). */
  connections: number;
  close(): Promise<void>;
}

/** Starts an HTTPS server on 127.0.0.1 with the test PKI's certificate. */
export async function startDocumentServer(pki: TestPki): Promise<DocumentServer> {
  const routes = new Map<string, DocumentHandler>();
  const hits = new Map<string, number>();
  const server: Server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (handler) return handler(req, res);
    res.writeHead(404).end();
  });
  const out: DocumentServer = {
    port: 0,
    url: (path, host = 'localhost') => `https://${host}:${out.port}${path}`,
    route: (path, handler) => routes.set(path, handler),
    json: (path, doc, headers = {}) =>
      routes.set(path, (_req, res) => {
        const body = JSON.stringify(doc);
        res
          .writeHead(200, {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            ...headers,
          })
          .end(body);
      }),
    publish: (doc, { dir = 'apps', file = 'client.json', maxAge = 60 } = {}) => {
      const path = `/${dir}/${randomBytes(6).toString('hex')}/${file}`;
      const clientId = out.url(path, '127.0.0.1');
      out.json(path, { client_id: clientId, ...doc }, { 'cache-control': `max-age=${maxAge}` });
      return { clientId, path };
    },
    hits,
    connections: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => out.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  out.port = (server.address() as { port: number }).port;
  return out;
}

/**
 * A document server on a fresh test PKI, and what `start` starts with `trust`: the test-only settings
 * that have an auth server (or a stack) fetch documents from loopback and trust the test CA.
 */
export async function startWithDocuments<T>(
  start: (trust: Record<string, string>) => Promise<T>,
): Promise<{ docs: DocumentServer; server: T }> {
  const pki = makeTestPki();
  const docs = await startDocumentServer(pki);
  try {
    return { docs, server: await start({ CIMD_ALLOW_LOOPBACK: 'true', CIMD_EXTRA_CA_FILE: pki.caFile }) };
  } catch (err) {
    await docs.close();
    throw err;
  }
}

/** A resolver that answers `address` for every name (how tests point a test name at loopback). */
export function fixedLookup(address: string): LookupFunction {
  const family = address.includes(':') ? 6 : 4;
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

/** Every name resolves to 127.0.0.1. */
export const loopbackLookup = fixedLookup('127.0.0.1');
