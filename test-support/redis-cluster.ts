/**
 * A real local Redis Cluster for the suites (scripts/redis-cluster.sh: three primaries, three
 * replicas on loopback), started through `scripts/services start --redis-cluster`, which is
 * idempotent: a cluster already up on those ports is reused.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const services = join(root, 'scripts', 'services');

/** One node's address. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** A running local cluster. */
export interface LocalCluster {
  /** Every node, `host:port,…` as REDIS_CLUSTER_NODES takes it. */
  nodesVariable: string;
  nodes: ClusterNode[];
  /** Its directory (`<dir>/<port>/redis.pid`, `redis.log`, the append-only files). */
  dir: string;
  /** Stops its six processes (only a cluster this call started on its own ports should be stopped). */
  stop(): void;
}

/** Starts (or finds running) the cluster on ports `basePort`..`basePort + 5` (default 7101). */
export function startRedisCluster(basePort = 7101): LocalCluster {
  const env = { ...process.env, REDIS_CLUSTER_BASE_PORT: String(basePort) };
  execFileSync(services, ['start', '--redis-cluster'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const nodes = [0, 1, 2, 3, 4, 5].map((i) => ({ host: '127.0.0.1', port: basePort + i }));
  const nodesVariable = nodes.map((n) => `${n.host}:${n.port}`).join(',');
  return {
    nodesVariable,
    nodes,
    dir: join(root, '.data', `redis-cluster-${basePort}`),
    stop: () => execFileSync(services, ['stop', '--redis-cluster'], { env, stdio: 'ignore' }),
  };
}
