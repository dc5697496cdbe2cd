/**
 * Our auth server as a side-by-side target (P1–P3), loaded as the peers are: the same number of
 * distinct access tokens for introspection (minted as the MEM-AS pool is), the refresh tokens of 10
 * confidential clients (client_secret_post, no id_token) and DCR's registration.
 */
import type { Bench } from '../lib/bench.js';
import { formLine, jsonLine } from '../lib/bench.js';
import { SCOPE_NO_OPENID, introspectionPool, refreshTokens, registration } from '../lib/seed.js';
import { introspectLine } from '../measures/auth-load.js';
import type { PeerTarget } from './peer.js';

export async function ourTarget(bench: Bench, tokens: number): Promise<PeerTarget> {
  const pool = await introspectionPool(bench, tokens);
  const refresh = await refreshTokens(bench, SCOPE_NO_OPENID, 10);
  const load = (name: string, lines: string[]) => ({
    url: bench.auth.url,
    requestsFile: bench.requests(name, lines),
  });
  return {
    name: 'ours',
    label: `our auth server (oidc-provider 9, Redis; production mode; Node ${process.version})`,
    processes: bench.authProcesses,
    shown: bench.authShown,
    introspection: load(
      'ours-peer-introspection',
      pool.map((t) => introspectLine(bench, t)),
    ),
    refresh: load(
      'ours-peer-refresh',
      refresh.map(({ client, tokens: t }) =>
        formLine('/api/oauth/token', {
          grant_type: 'refresh_token',
          refresh_token: t.refresh_token!,
          client_id: client.clientId,
          client_secret: client.clientSecret!,
        }),
      ),
    ),
    registration: load('ours-peer-register', [jsonLine('/api/oauth/register', registration('bench agent'))]),
    notes: {},
  };
}
