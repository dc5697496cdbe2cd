/**
 * The servers of P1–P3, started once (beside MEM-API; P3 stops them): ours, then each peer scripts/peers
 * built, with 500 distinct access tokens each. A peer not built is skipped with the reason.
 */
import { formLine, jsonLine, type Bench } from '../lib/bench.js';
import { SCOPE_NO_OPENID, introspectionPool, refreshTokens, registration } from '../lib/seed.js';
import { introspectLine } from '../measures/auth-load.js';
import { startHydra } from './hydra.js';
import { startKeycloak } from './keycloak.js';
import { peerLoad, peersEnv, type PeerTarget } from './peer.js';

const PEER_TOKENS = 500;

/** Our auth server loaded as the peers are: DCR's registration, 10 confidential clients' refresh tokens. */
async function ourTarget(bench: Bench): Promise<PeerTarget> {
  const pool = await introspectionPool(bench, PEER_TOKENS);
  const refresh = await refreshTokens(bench, SCOPE_NO_OPENID, 10);
  const introspect = (t: string) => introspectLine(bench, t);
  const load = (name: string, lines: string[]) => peerLoad(bench, bench.auth.url, name, lines);
  const refreshLine = ({ client, tokens }: (typeof refresh)[number]) =>
    formLine('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.clientId,
      client_secret: client.clientSecret!,
    });
  return {
    name: 'ours',
    label: `our auth server (oidc-provider 9, Redis; production mode; Node ${process.version})`,
    processes: bench.authProcesses,
    shown: bench.authShown,
    introspection: load('ours-peer-introspection', pool.map(introspect)),
    refresh: load('ours-peer-refresh', refresh.map(refreshLine)),
    registration: load('ours-peer-register', [jsonLine('/api/oauth/register', registration('bench agent'))]),
    notes: {},
  };
}

type PeerSet = { targets: PeerTarget[]; skipped: string[]; stop: () => Promise<void> };

/** Ours first, then the built peers; `stop` ends the peers (ours runs on). Started once (`bench.memo`). */
export function peerSet(bench: Bench): Promise<PeerSet> {
  return bench.memo('peer-set', async () => {
    const { HYDRA_BIN: hydraBin, KEYCLOAK_HOME: kcHome, KEYCLOAK_JAVA_HOME: javaHome } = peersEnv(bench.root);
    const targets = [await ourTarget(bench)];
    // Both at once: Keycloak's start-up waits on its disk as much as on the CPU.
    const [hydra, keycloak] = await Promise.all([
      hydraBin ? startHydra(bench, hydraBin, PEER_TOKENS) : undefined,
      kcHome && javaHome ? startKeycloak(bench, kcHome, javaHome, PEER_TOKENS) : undefined,
    ]);
    const skipped = [
      ...(!hydra && !keycloak ? ['no peer built (run scripts/peers; Keycloak needs Java 21+)'] : []),
      ...(!hydra && keycloak ? ['Ory Hydra not built (scripts/peers)'] : []),
      ...(hydra && !keycloak ? ['Keycloak not built (scripts/peers; it needs Java 21+)'] : []),
    ];
    targets.push(...[hydra, keycloak].filter((t) => t !== undefined));
    const stop = async () => void (await Promise.all(targets.map((t) => t.stop?.() ?? Promise.resolve())));
    return { targets, skipped, stop };
  });
}
