/**
 * The servers of P1–P3, started once per run (MEM-API starts them in the background, P3 stops
 * them): ours, then each peer scripts/peers built. A peer not built is skipped with the reason; one
 * that is built but does not come up fails the measures rather than quietly dropping a column.
 * PEER_TOKENS distinct access tokens per server: each of Hydra's takes its own code flow.
 */
import type { Bench } from '../lib/bench.js';
import { startHydra } from './hydra.js';
import { startKeycloak } from './keycloak.js';
import { ourTarget } from './ours.js';
import { peersEnv, type PeerTarget } from './peer.js';

/** Distinct access tokens introspected on each server. */
export const PEER_TOKENS = 500;

/** What the side-by-side measures load, and what was left out and why. */
export interface PeerSet {
  /** Ours first. */
  targets: PeerTarget[];
  skipped: string[];
  /** Stops every process started here (ours, `bench.auth`, keeps running for the other measures). */
  stop(): Promise<void>;
}

/** Ours and the built peers, started once (`bench.memo`). */
export function peerSet(bench: Bench): Promise<PeerSet> {
  return bench.memo('peer-set', async () => {
    const env = peersEnv(bench.root);
    const skipped: string[] = [];
    const ours = await ourTarget(bench, PEER_TOKENS);
    const targets: PeerTarget[] = [ours];
    if (!env.HYDRA_BIN && !env.KEYCLOAK_HOME) {
      skipped.push('no peer built (run scripts/peers; Keycloak needs Java 21+)');
    }
    // Both at once: Keycloak's start-up waits on its disk as much as on the CPU.
    const kc = env.KEYCLOAK_HOME && env.KEYCLOAK_JAVA_HOME ? [env.KEYCLOAK_HOME, env.KEYCLOAK_JAVA_HOME] : [];
    const [hydra, keycloak] = await Promise.all([
      env.HYDRA_BIN ? startHydra(bench, env.HYDRA_BIN, PEER_TOKENS) : undefined,
      kc.length ? startKeycloak(bench, kc[0]!, kc[1]!, PEER_TOKENS) : undefined,
    ]);
    if (hydra) targets.push(hydra);
    else if (keycloak) skipped.push('Ory Hydra not built (scripts/peers)');
    if (keycloak) targets.push(keycloak);
    else if (hydra) skipped.push('Keycloak not built (scripts/peers; it needs Java 21+)');
    const stop = async () => void (await Promise.all(targets.map((t) => t.stop?.() ?? Promise.resolve())));
    return { targets, skipped, stop };
  });
}
