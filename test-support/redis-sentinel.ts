/**
 * A real local primary with one replica, watched by one Sentinel (Debian's `redis-server`, the same
 * binary run with `--sentinel`), on free loopback ports in a temporary directory: what
 * REDIS_SENTINELS + REDIS_SENTINEL_NAME point the services at. One Sentinel (quorum 1) is enough for
 * `SENTINEL FAILOVER`, which needs no agreement; production runs three or more.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, pollUntil, portAccepts, startProcess, type Started } from './processes.js';

/** The name Sentinel knows the primary by. */
export const SENTINEL_NAME = 'school';

/** A running primary, replica and Sentinel. */
export interface LocalSentinel {
  /** `host:port` of the Sentinel, as REDIS_SENTINELS takes it. */
  sentinelsVariable: string;
  /** The port of the node that is the primary now, as Sentinel says. */
  primaryPort(): number;
  /** Asks Sentinel to fail the primary over to the replica; resolves once Sentinel names the new one. */
  failover(): Promise<number>;
  /** Stops all three. */
  stop(): Promise<void>;
}

const cli = (port: number, ...args: string[]) =>
  execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).trim();

/** Starts a primary, a replica of it and a Sentinel watching them. */
export async function startRedisSentinel(): Promise<LocalSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  const [primary, replica, sentinel] = [await freePort(), await freePort(), await freePort()];
  const node = (port: number, extra: string[]) =>
    startProcess(`redis ${port}`, 'redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--dir', dir, '--dbfilename', `dump-${port}.rdb`, ...extra,
    ]); // prettier-ignore
  const started: Started[] = [
    node(primary, []),
    node(replica, ['--replicaof', '127.0.0.1', String(primary)]),
  ];
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(
    conf,
    [
      `port ${sentinel}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primary} 1`,
      `sentinel down-after-milliseconds ${SENTINEL_NAME} 2000`,
      `sentinel failover-timeout ${SENTINEL_NAME} 10000`,
      '',
    ].join('\n'),
  );
  started.push(startProcess(`sentinel ${sentinel}`, 'redis-server', [conf, '--sentinel']));
  const primaryPort = () =>
    Number(cli(sentinel, 'sentinel', 'get-master-addr-by-name', SENTINEL_NAME).split('\n')[1]);
  await pollUntil(async () => (await portAccepts(sentinel)) && (await portAccepts(replica)), 'redis up');
  await pollUntil(() => /master_link_status:up/.test(cli(replica, 'info', 'replication')), 'replica in sync');
  await pollUntil(
    () => /num-slaves=1|"num-slaves"\n1/.test(cli(sentinel, 'sentinel', 'masters')) || sentinelSeesReplica(),
    'sentinel sees the replica',
  );
  function sentinelSeesReplica(): boolean {
    return cli(sentinel, 'sentinel', 'replicas', SENTINEL_NAME).includes(String(replica));
  }
  return {
    sentinelsVariable: `127.0.0.1:${sentinel}`,
    primaryPort,
    async failover() {
      const before = primaryPort();
      // Replication is asynchronous: fail over once the replica has everything (docs/operators.md says what
      // a failover in the middle of the stream can lose).
      const offset = (port: number, field: string) =>
        new RegExp(`${field}:(\\d+)`).exec(cli(port, 'info', 'replication'))?.[1];
      const other = before === primary ? replica : primary;
      await pollUntil(
        () => offset(before, 'master_repl_offset') === offset(other, 'slave_repl_offset'),
        'the replica has caught up',
      );
      cli(sentinel, 'sentinel', 'failover', SENTINEL_NAME);
      await pollUntil(() => primaryPort() !== before, 'sentinel names a new primary', 30_000);
      const now = primaryPort();
      await pollUntil(() => /role:master/.test(cli(now, 'info', 'replication')), 'the new primary writes');
      return now;
    },
    async stop() {
      await Promise.all(started.map((p) => p.stop()));
    },
  };
}
