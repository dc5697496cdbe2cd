/**
 * Our auth server once more, run by Node.js 20 (the machine's /usr/bin/node; BENCH_NODE20 names
 * another binary), beside the Node 22 process every other measure loads: the same environment, Redis,
 * MongoDB and request files, its own port. P1–P3 load it in the same interleaving as ours and the
 * peers, so the run also prints Node 22 against Node 20 on the same loads: a
 * ratio, no goal. oidc-provider 9 warns that Node 20 is unsupported (the services need
 * Node 22) but runs on it.
 */
import { execFileSync } from 'node:child_process';
import type { Bench } from '../lib/bench.js';
import { startAuthInstance } from '../lib/stack.js';
import type { PeerTarget } from './peer.js';

/** The Node 20 binary compared with the one running the bench. */
const NODE20 = process.env.BENCH_NODE20 ?? '/usr/bin/node';

/** Our target run by Node 20, or why there is none. */
export async function node20Target(bench: Bench, ours: PeerTarget): Promise<PeerTarget | string> {
  let version: string;
  try {
    version = execFileSync(NODE20, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return `Node 20: no ${NODE20} (BENCH_NODE20)`;
  }
  if (!version.startsWith('v20.')) return `Node 20: ${NODE20} is ${version}`;
  if (version === process.version) return `Node 20: the bench itself runs on ${version}`;
  bench.log(`starting our auth server on Node ${version}`);
  const server = await startAuthInstance(bench, 'auth-server-node20', NODE20);
  const at = (load: PeerTarget['introspection']) => ({ url: server.url, requestsFile: load.requestsFile });
  return {
    name: 'ours-node20',
    label: `our auth server as "ours", run by Node ${version}`,
    runtime: true,
    processes: { node: server.pid, redis: bench.redis.pid },
    shown: bench.authShown(),
    introspection: at(ours.introspection),
    refresh: at(ours.refresh),
    registration: 'url' in ours.registration ? at(ours.registration) : ours.registration,
    notes: {},
    stop: () => server.stop(),
  };
}
